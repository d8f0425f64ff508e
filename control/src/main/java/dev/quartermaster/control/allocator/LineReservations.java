package dev.quartermaster.control.allocator;

import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.core.env.Env;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The allocator's decisions and the {@link HeadOfLine}: a waiting gang joins the line, and as its
 * head reserves what it will get ({@link HeadReservation}, from the index and {@link HolderEnds});
 * every other decision keeps off the reservation unless its tasks end before the head's start; and
 * what each is told of it, in words.
 */
final class LineReservations {
  private final HeadOfLine line;
  private final HolderEnds ends;
  private final DeviceIndex index;
  private final Informers informers;
  private final Env env;

  LineReservations(
      HeadOfLine line, HolderEnds ends, DeviceIndex index, Informers informers, Env env) {
    this.line = line;
    this.ends = ends;
    this.index = index;
    this.informers = informers;
    this.env = env;
  }

  /** Where a waiting gang stands in line, and what it is told of that. */
  record InLine(boolean waits, String words) {}

  /**
   * When {@code tasks} would give their devices back, were they placed now ({@link
   * HolderEnds#ifPlacedNow}).
   */
  OptionalLong endsIfPlacedNow(List<Task> tasks) {
    return ends.ifPlacedNow(tasks);
  }

  /**
   * The reservation a decision for {@code key}, which gives its devices back by {@code endsBy}
   * (empty: never known), must keep off; empty when it need not ({@link HeadOfLine#closedTo}).
   */
  Optional<HeadReservation> closedTo(AllocatorKey key, OptionalLong endsBy) {
    return line.closedTo(key.queueKey(), endsBy);
  }

  /**
   * {@code key} does not wait any more; whether it held the reservation (see {@link
   * HeadOfLine#left}).
   */
  boolean left(AllocatorKey key) {
    return line.left(key.queueKey());
  }

  /** The keys in line, to be decided again when something goes. */
  List<String> waiting() {
    return line.waiting();
  }

  /**
   * {@code gang}, which wants {@code wanted}, waits: its place in line, and what that means, for
   * its message. The head reserves what it will get; a gang kept off the head's reservation ({@code
   * closed}) says so; a gang that could not fit even on an empty fleet reserves nothing and does
   * not wait in line.
   */
  InLine join(
      CachedGang gang,
      List<GangFit.Member> wanted,
      Map<String, DeviceClass> classes,
      Optional<HeadReservation> closed) {
    var w = gang.workload();
    int priority =
        w.spec()
            .priority()
            .flatMap(p -> informers.priorityClasses().cache().get(p))
            .map(p -> p.spec().value())
            .orElse(0);
    var place =
        new HeadOfLine.Place(
            gang.key().queueKey(), priority, w.metadata().createdAt().orElse(Instant.EPOCH));
    if (!line.waits(place)) {
      return new InLine(true, closed.map(r -> "; " + keptOff(r)).orElse(""));
    }
    var r =
        HeadReservation.of(
            gang.key().queueKey(),
            index.schedulable(),
            ends::of,
            wanted,
            classes,
            gang.spec().topology(),
            ends.now());
    if (r.isEmpty()) {
      return new InLine(false, ""); // it could not fit even an empty fleet: nothing to reserve
    }
    if (r.get().start().isEmpty()) {
      // A start that is never known promises nothing, and would idle the devices for ever: it
      // reserves nothing and leaves the line, so the next gang may; it waits as before until the
      // jobs without a deadline end, and from then its start is bounded.
      return new InLine(
          false,
          "; nothing is reserved for it: a job without activeDeadlineSeconds holds devices it"
              + " needs, so no start time can be promised");
    }
    line.reserve(r.get());
    return new InLine(true, "; " + reservedText(r.get()));
  }

  /**
   * Why a decision kept off the head's reservation: {@code 20 devices are reserved for
   * gang/big/workers, which starts by 12:03:05Z; only a job whose activeDeadlineSeconds ends before
   * then may take them}.
   */
  String keptOff(HeadReservation r) {
    return r.size()
        + " device(s) are reserved for "
        + r.head()
        + r.start().stream().mapToObj(s -> ", which starts by " + at(s)).findFirst().orElse("")
        + "; only a job whose activeDeadlineSeconds ends before then may take them";
  }

  /**
   * What a task placed as {@code placed} is told when it took devices reserved for the head of the
   * line, which its deadline let it; empty when it took none.
   */
  Optional<String> backfilled(Placement.Placed placed) {
    return line.reservation()
        .filter(
            r ->
                placed.devices().values().stream()
                    .flatMap(List::stream)
                    .anyMatch(d -> r.reserves(placed.node(), d.device())))
        .map(
            r ->
                "placed on "
                    + placed.node()
                    + " on devices reserved for "
                    + r.head()
                    + r.start().stream()
                        .mapToObj(s -> " (which starts by " + at(s) + ")")
                        .findFirst()
                        .orElse("")
                    + ": its activeDeadlineSeconds ends before then");
  }

  /**
   * {@code reserved for it (head of the line): node-1 gpu-0,gpu-1, node-2 gpu-0; it starts by
   * 12:03:05Z, when what holds them reaches its deadline}.
   */
  private String reservedText(HeadReservation r) {
    var nodes =
        r.devices().entrySet().stream()
            .limit(8)
            .map(e -> e.getKey() + " " + String.join(",", new TreeSet<>(e.getValue())))
            .collect(Collectors.joining(", "));
    return "reserved for it (head of the line): "
        + nodes
        + (r.devices().size() > 8 ? ", …" : "")
        + "; it starts by "
        + at(r.start().orElseThrow())
        + ", when what holds them reaches its activeDeadlineSeconds; a smaller job takes them only"
        + " if its own deadline ends before then";
  }

  /** The wall-clock moment of {@code nanos} on the allocator's clock, to the second. */
  private Instant at(long nanos) {
    return env.now().plus(ends.until(nanos)).truncatedTo(ChronoUnit.SECONDS);
  }
}
