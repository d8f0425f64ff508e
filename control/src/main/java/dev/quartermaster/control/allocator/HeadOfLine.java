package dev.quartermaster.control.allocator;

import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The line of gangs that wait for devices they cannot get now, and its head's {@link
 * HeadReservation}: the head is the waiting gang of the highest priority, then the oldest, then by
 * name. Only the head reserves; every other decision keeps off its reserved devices unless it gives
 * them back before the head's start ({@link #closedTo}). A smaller job thus backfills only where it
 * cannot delay the head, and the head is placed by its start however many smaller jobs arrive
 * (Slurm's backfill, EASY variant: one reservation).
 *
 * <p>Kept in memory by the allocator: each gang's key says, at each decision, whether it waits
 * ({@link #waits}) or not any more ({@link #left}); a workload, task or claim going queues every
 * waiting key ({@link #waiting}), so a head whose workload is deleted leaves the line. A new leader
 * starts with an empty line, which fills as its keys are decided. Thread-safe.
 */
final class HeadOfLine {
  /** A waiting gang's place in line. */
  record Place(String key, int priority, Instant since) {}

  private static final Comparator<Place> ORDER =
      Comparator.comparingInt((Place p) -> -p.priority())
          .thenComparing(Place::since)
          .thenComparing(Place::key);

  private final Backfill policy;
  private final Map<String, Place> line = new HashMap<>();
  private Optional<HeadReservation> reservation = Optional.empty();

  HeadOfLine(Backfill policy) {
    this.policy = policy;
  }

  /**
   * {@code place} waits: it joins the line (or keeps its place). Returns whether it is the head,
   * whose reservation its decision computes now ({@link #reserve}); a head displaced by it loses
   * its reservation.
   */
  synchronized boolean waits(Place place) {
    if (policy == Backfill.OFF) {
      return false;
    }
    line.put(place.key(), place);
    boolean head = head().map(h -> h.key().equals(place.key())).orElse(false);
    if (head && reservation.isPresent() && !reservation.get().head().equals(place.key())) {
      reservation = Optional.empty();
    }
    return head;
  }

  /** The head's reservation, as its decision computed it: kept only while it is still the head. */
  synchronized void reserve(HeadReservation r) {
    if (head().map(h -> h.key().equals(r.head())).orElse(false)) {
      reservation = Optional.of(r);
    }
  }

  /**
   * {@code key} does not wait any more (placed, gone, or it cannot fit even on an empty fleet).
   * Returns whether it held the reservation: its devices are open again, and keys kept off them
   * should be told.
   */
  synchronized boolean left(String key) {
    line.remove(key);
    if (reservation.isPresent() && reservation.get().head().equals(key)) {
      reservation = Optional.empty();
      return true;
    }
    return false;
  }

  /**
   * The reservation a decision for {@code key}, which gives its devices back by {@code endsBy}
   * (empty: no deadline), must keep off; empty when there is none, when {@code key} is the head, or
   * when it ends before the head's start (it backfills).
   */
  synchronized Optional<HeadReservation> closedTo(String key, OptionalLong endsBy) {
    return reservation.filter(r -> !r.head().equals(key) && !r.admits(endsBy));
  }

  /** The head's reservation, if the head has one now. */
  synchronized Optional<HeadReservation> reservation() {
    return reservation;
  }

  /** The keys in line, to be decided again when something goes. */
  synchronized List<String> waiting() {
    return List.copyOf(line.keySet());
  }

  private Optional<Place> head() {
    return line.values().stream().min(ORDER);
  }
}
