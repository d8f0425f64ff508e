package dev.quartermaster.control.allocator;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Who waits for what: the one place where a key that did not fit waits, and the one place that
 * moves it back to the queue — as the kube-scheduler's queue parks an unschedulable pod with the
 * cluster events that could make it schedulable and moves it back when one of them happens. A key
 * is parked with a {@link Wait} (why, and the {@link WakeEvent}s that could change that); an event
 * moves every key that waits for it back to the queue, and those keys leave the room. A key being
 * decided again for any other reason (its own claim or task changed) leaves the room too: its new
 * decision parks it again if it still does not fit.
 *
 * <h2>No lost wake-up</h2>
 *
 * A decision reads the caches and the index, finds no fit, and parks; an event can land between the
 * read and the park, when the key is in no one's list. So a decision starts with {@link #take},
 * which hands out a {@link Ticket} (the number of events told so far), and {@link #park} compares:
 * if an event the key would wait for was told after its ticket, the decision may have missed it,
 * and the key goes back to the queue at once instead of waiting. Events are told after their change
 * is visible, so an event is either seen by the decision or newer than its ticket.
 *
 * <p>Thread-safe; the queue is called outside the room's lock.
 */
final class Waiters {

  /** What a parked key waits for: why it did not fit (for people), and what could change that. */
  record Wait(String why, Set<WakeEvent> wakeOn) {
    Wait {
      Objects.requireNonNull(why, "why");
      wakeOn = Set.copyOf(wakeOn);
    }

    /**
     * The key fits only on {@code node}, to which another worker's placement is being committed.
     */
    static Wait forCommit(String node) {
      return new Wait(
          "node " + node + " is being committed to", Set.of(new WakeEvent.CommitEnded(node)));
    }

    /** A chosen device of {@code node} is named by a claim allocated before records existed. */
    static Wait forAdoption(String node) {
      return new Wait(
          "node " + node + "'s record has not adopted the claims from before records yet",
          Set.of(new WakeEvent.RecordAdopted(node)));
    }
  }

  /** Where a decision stands in the room's history: the number of events told when it began. */
  record Ticket(long events) {}

  /** Where a woken key goes: the allocator's queue. */
  private final Consumer<AllocatorKey> queue;

  private long told;

  /** Per event, the number it was last told under (1, 2, …): newer than a ticket means after it. */
  private final Map<WakeEvent, Long> lastTold = new HashMap<>();

  private final Map<AllocatorKey, Wait> parked = new HashMap<>();
  private final Map<WakeEvent, Set<AllocatorKey>> byEvent = new HashMap<>();

  Waiters(Consumer<AllocatorKey> queue) {
    this.queue = Objects.requireNonNull(queue, "queue");
  }

  /** {@code key} is about to be decided: it leaves the room, and its decision gets a ticket. */
  synchronized Ticket take(AllocatorKey key) {
    leave(key);
    return new Ticket(told);
  }

  /**
   * Parks {@code key}, decided under {@code ticket}, until one of {@code wait}'s events — or, if
   * one was told since the ticket, sends it back to the queue now.
   */
  void park(AllocatorKey key, Ticket ticket, Wait wait) {
    synchronized (this) {
      leave(key);
      boolean missed =
          wait.wakeOn().stream().anyMatch(e -> lastTold.getOrDefault(e, 0L) > ticket.events());
      if (!missed) {
        parked.put(key, wait);
        wait.wakeOn().forEach(e -> byEvent.computeIfAbsent(e, x -> new HashSet<>()).add(key));
        return;
      }
    }
    queue.accept(key);
  }

  /** {@code event} happened (and is visible): every key waiting for it goes back to the queue. */
  void happened(WakeEvent event) {
    List<AllocatorKey> woken;
    synchronized (this) {
      lastTold.put(event, ++told);
      var keys = byEvent.remove(event);
      if (keys == null) {
        return;
      }
      woken = new ArrayList<>(keys);
      woken.forEach(this::leave);
    }
    woken.forEach(queue);
  }

  /** The parked keys and what each waits for. */
  synchronized Map<AllocatorKey, Wait> parked() {
    return Map.copyOf(parked);
  }

  private void leave(AllocatorKey key) {
    var wait = parked.remove(key);
    if (wait == null) {
      return;
    }
    for (var e : wait.wakeOn()) {
      var keys = byEvent.get(e);
      if (keys != null) {
        keys.remove(key);
        if (keys.isEmpty()) {
          byEvent.remove(e);
        }
      }
    }
  }
}
