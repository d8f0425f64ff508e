package dev.quartermaster.control.allocator;

import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.control.allocator.AllocatorKey.ForGang;
import dev.quartermaster.core.queue.Result;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Places gangs: a worker group, or all of a workload's groups, whose members (each group's share:
 * its {@code minMember}) get their devices in one decision or none does (see {@code package-info},
 * "Gangs"). A thin loop: it reads the gang and its members ({@link GangMembers}), decides where
 * they go over the index's snapshot ({@link GangChoice}), and writes that ({@link GangWrites}) or
 * parks the gang saying why, in line for a reservation if it waits for devices ({@link
 * LineReservations}). Once the gang holds devices, members beyond each group's share (and
 * replacements of failed ones) are placed one by one through their own keys.
 */
final class GangPlacer {
  private final GangMembers gangs;
  private final DeviceIndex index;
  private final GangWrites writes;
  private final LineReservations line;
  private final AllocatorQueue queue;
  private final PlacementChecks checks;
  private final EventRecorder events;

  GangPlacer(
      GangMembers gangs,
      DeviceIndex index,
      GangWrites writes,
      LineReservations line,
      AllocatorQueue queue,
      PlacementChecks checks,
      EventRecorder events) {
    this.gangs = gangs;
    this.index = index;
    this.writes = writes;
    this.line = line;
    this.queue = queue;
    this.checks = checks;
    this.events = events;
  }

  /**
   * What a decision came to, and whether the gang waits for devices (keeping its place in line).
   */
  private record Decision(Result result, boolean waits) {
    static Decision done(Result result) {
      return new Decision(result, false);
    }
  }

  /**
   * Decides {@code key}; a gang that waits for devices keeps its place in the {@link HeadOfLine},
   * any other outcome (placed, gone, nothing to place) takes it out, opening what it reserved.
   */
  Result reconcile(ForGang key, Waiters.Ticket ticket) {
    var decision = decide(key, ticket);
    if (!decision.waits() && line.left(key)) {
      // The devices it reserved are open again: every key kept off them is decided again.
      queue.happened(WakeEvent.Cluster.RECORDS);
    }
    return decision.result();
  }

  private Decision decide(ForGang key, Waiters.Ticket ticket) {
    var inFlight = writes.finishInFlight(key, ticket);
    if (inFlight.isPresent()) {
      return Decision.done(inFlight.get());
    }
    var found = gangs.named(key);
    if (found.isEmpty()) {
      return Decision.done(Result.done());
    }
    var gang = found.get();
    var members = gangs.of(gang);
    if (members.stream().anyMatch(GangMember::holds)) {
      // Placed: whatever is left goes one by one.
      members.forEach(m -> queue.queue(AllocatorKey.task(m.name())));
      return Decision.done(Result.done());
    }
    var ready =
        members.stream()
            .filter(m -> m.task().spec().node().isEmpty() && !m.claims().isEmpty())
            .sorted(Comparator.comparingInt(GangMember::ordinal))
            .toList();
    if (gang.spec().minMember() == 0 || ready.isEmpty()) {
      return Decision.done(Result.done()); // nothing to place; claimless ones are the scheduler's
    }
    // Each group's share: its first ready members by ordinal, every group's in the one decision.
    var chosen = new ArrayList<GangMember>();
    for (var share : gang.spec().shares()) {
      var of = ready.stream().filter(m -> m.group().equals(share.group())).toList();
      if (of.size() < share.members()) {
        // The workload controller is still creating members and their claims: each one's arrival
        // queues the gang again. Nothing is written meanwhile (a word on every member's claims per
        // arrival would be quadratic in the gang's size); the workload's status tells it.
        queue.park(key, ticket, NoPlacement.WAITING_FOR_GANG_MEMBERS.waitFor(false));
        return Decision.done(Result.done());
      }
      chosen.addAll(of.subList(0, share.members()));
    }
    var pending = chosen.stream().flatMap(m -> m.pending().stream()).toList();
    var classes = checks.classes();
    var refused = checks.refusal(pending, classes);
    if (refused.isPresent()) {
      return Decision.done(
          queue.block(key, ticket, pending, refused.get().why(), refused.get().message()));
    }
    var wanted =
        chosen.stream().map(m -> new GangFit.Member(m.name(), ClaimNeed.of(m.pending()))).toList();
    var closed =
        line.closedTo(key, line.endsIfPlacedNow(chosen.stream().map(GangMember::task).toList()));
    var devicesClosed = closed.map(HeadReservation::devices).orElse(java.util.Map.of());
    return switch (index.placeGang(wanted, classes, gang.spec().topology(), devicesClosed)) {
      case GangPlacement.Placed placed -> {
        try {
          yield Decision.done(writes.commit(gang, ticket, chosen, members, placed));
        } finally {
          for (var node : placed.nodes()) {
            index.commitEnded(node);
            queue.commitEnded(node);
          }
        }
      }
      case GangPlacement.Busy busy -> {
        queue.park(
            key,
            ticket,
            new Waiters.Wait(
                "nodes " + new TreeSet<>(busy.nodes()) + " are being committed to",
                busy.nodes().stream()
                    .map(n -> (WakeEvent) new WakeEvent.CommitEnded(n))
                    .collect(Collectors.toSet())));
        yield new Decision(Result.done(), true);
      }
      case GangPlacement.NoSuchDeviceClass p ->
          Decision.done(
              queue.block(key, ticket, pending, NoPlacement.NO_SUCH_DEVICE_CLASS, p.message()));
      case GangPlacement.NeverFits never -> {
        var message =
            "gang "
                + gang.key().name()
                + " can never fit on this fleet: it needs "
                + needs(gang, wanted)
                + "; "
                + never.why()
                + "; it waits, holding nothing, until the fleet changes (nodes join, leave or are"
                + " relabelled)";
        events.warning(gang.workload(), "GangNeverFits", message);
        yield Decision.done(queue.block(key, ticket, pending, NoPlacement.NEVER_FITS, message));
      }
      case GangPlacement.Short s -> {
        var inLine = line.join(gang, wanted, classes, closed);
        var message = shortMessage(gang, wanted, s) + inLine.words();
        events.warning(gang.workload(), "GangWaiting", message);
        yield new Decision(
            queue.block(key, ticket, pending, NoPlacement.WAITING_FOR_GANG, message),
            inLine.waits());
      }
    };
  }

  /**
   * {@code gang job/workers needs 4 × (4 gpu) at once on nodes of one
   * topology.quartermaster.dev/rack; at most 3 fit now (in rack-2)}; members that ask for different
   * devices (a workload gang's groups) are counted by what they ask for: {@code 1 × (1 gpu) + 8 ×
   * (4 gpu)}.
   */
  private static String shortMessage(
      CachedGang gang, List<GangFit.Member> wanted, GangPlacement.Short s) {
    return "gang "
        + gang.key().name()
        + " needs "
        + needs(gang, wanted)
        + "; at most "
        + s.most()
        + " fit now"
        + s.where().map(w -> " (in " + w + ")").orElse("")
        + "; it holds nothing while it waits";
  }

  /**
   * {@code 4 × (4 gpu) at once on nodes of one topology.quartermaster.dev/rack}: what the gang asks
   * of one decision.
   */
  private static String needs(CachedGang gang, List<GangFit.Member> wanted) {
    var counts = new LinkedHashMap<String, Integer>();
    for (var m : wanted) {
      var need =
          m.needs().stream()
              .flatMap(n -> n.requests().stream())
              .map(r -> r.count() + " " + r.deviceClassName())
              .collect(Collectors.joining(" + "));
      counts.merge(need, 1, Integer::sum);
    }
    var each =
        counts.entrySet().stream()
            .map(e -> e.getValue() + " × (" + e.getKey() + ")")
            .collect(Collectors.joining(" + "));
    return each
        + " at once"
        + gang.spec().topology().required().map(k -> " on nodes of one " + k).orElse("");
  }
}
