package dev.quartermaster.control.allocator;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.control.allocator.AllocatorKey.ForGang;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.core.queue.Result;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * A gang's decision written: in one transaction ({@link AllocationWrite#commitGang}) when it fits
 * one, else through a reservation in the gang ledger ({@link GangReservations}); and a reservation
 * in flight carried out before any new decision. Each ends in what the gang's key does next, told
 * as events on its workload.
 */
final class GangWrites {
  private final AllocationWrite write;
  private final GangReservations reservations;
  private final Informers informers;
  private final AllocatorQueue queue;
  private final EventRecorder events;

  GangWrites(
      AllocationWrite write,
      GangReservations reservations,
      Informers informers,
      AllocatorQueue queue,
      EventRecorder events) {
    this.write = write;
    this.reservations = reservations;
    this.informers = informers;
    this.queue = queue;
    this.events = events;
  }

  /**
   * A decision made earlier for {@code key} (here, or by an allocator that crashed or lost
   * leadership), finished before any other is made: the ledger says what it was. Empty when there
   * is none.
   */
  Optional<Result> finishInFlight(ForGang key, Waiters.Ticket ticket) {
    if (!reservations.inFlight(key)) {
      return Optional.empty();
    }
    var outcome = reservations.carryOut(key);
    if (outcome instanceof GangReservations.Outcome.Absent) {
      return Optional.empty();
    }
    return Optional.of(settled(key, ticket, List.of(), outcome));
  }

  /**
   * Writes the gang's decision for {@code chosen}; once it stands, the rest of {@code members}
   * (beyond {@code minMember}) are placed one by one: their keys returned without waiting while the
   * gang held nothing, so nothing else would bring them back.
   */
  Result commit(
      CachedGang gang,
      Waiters.Ticket ticket,
      List<GangMember> chosen,
      List<GangMember> members,
      GangPlacement.Placed placed) {
    var decided =
        chosen.stream()
            .map(
                m ->
                    new AllocationWrite.Decided(
                        m.pending(), placed.byMember().get(m.name()), Optional.of(m.task())))
            .toList();
    var pending = chosen.stream().flatMap(m -> m.pending().stream()).toList();
    if (!reservations.fitsOneCommit(decided)) {
      // More writes than one transaction of this store takes (etcd's): the decision is committed
      // as one reservation, and its writes follow from it.
      return settled(
          gang.key(),
          ticket,
          pending,
          reservations.propose(GangReservations.of(gang.workload(), gang.key().gang(), decided)));
    }
    WritePlan plan;
    try {
      plan = write.commitGang(decided, gang.workload().metadata().generation());
    } catch (ApiException e) {
      if (!e.is(Reason.PayloadTooLarge)) {
        throw e;
      }
      // A store whose limit this client cannot tell (over HTTP) refused the one transaction.
      return settled(
          gang.key(),
          ticket,
          pending,
          reservations.propose(GangReservations.of(gang.workload(), gang.key().gang(), decided)));
    }
    return switch (plan) {
      case WritePlan.Commit c -> {
        members.stream()
            .filter(m -> !chosen.contains(m))
            .forEach(m -> queue.queue(AllocatorKey.task(m.name())));
        var nodes = new TreeSet<>(placed.nodes());
        events.normal(
            gang.workload(),
            "GangPlaced",
            "gang "
                + gang.key().name()
                + ": "
                + chosen.size()
                + " members placed in one decision on "
                + nodes.size()
                + " node(s): "
                + nodeList(nodes));
        yield Result.done();
      }
      case WritePlan.Stale s -> Result.requeue();
      case WritePlan.Taken t -> Result.requeue();
      case WritePlan.AwaitAdoption a -> {
        queue.queue(AllocatorKey.node(a.node()));
        yield Result.requeue();
      }
    };
  }

  /**
   * What became of a reservation: placed (its other members, beyond {@code minMember}, go one by
   * one: the gang's key, queued again, finds it holding and queues them), retried, or removed
   * (decide again; a member too large for one transaction waits, saying so on {@code pending}).
   */
  private Result settled(
      ForGang key,
      Waiters.Ticket ticket,
      List<ResourceClaim> pending,
      GangReservations.Outcome outcome) {
    var workload = informers.workloads().cache().get(key.workload());
    return switch (outcome) {
      case GangReservations.Outcome.Absent a -> Result.requeue();
      case GangReservations.Outcome.Retry r -> Result.requeue();
      case GangReservations.Outcome.Placed p -> {
        queue.queue(key);
        var nodes = new TreeSet<String>();
        p.reservation().members().forEach(m -> nodes.add(m.node()));
        workload.ifPresent(
            w ->
                events.normal(
                    w,
                    "GangPlaced",
                    "gang "
                        + key.name()
                        + ": "
                        + p.reservation().members().size()
                        + " members placed in one decision (a reservation, then "
                        + p.commits()
                        + " commits of its members' writes) on "
                        + nodes.size()
                        + " node(s): "
                        + nodeList(nodes)));
        yield Result.done();
      }
      case GangReservations.Outcome.Cancelled c -> {
        workload.ifPresent(
            w ->
                events.warning(
                    w,
                    "GangReservationCancelled",
                    "gang " + key.name() + ": its reservation was removed: " + c.why()));
        yield Result.requeue();
      }
      case GangReservations.Outcome.TooLarge t ->
          queue.block(
              key,
              ticket,
              pending,
              NoPlacement.GANG_TOO_LARGE,
              "gang " + key.name() + ": " + t.why() + "; keep it smaller (minMember, claims)");
    };
  }

  private static String nodeList(TreeSet<String> nodes) {
    return String.join(",", nodes.stream().limit(8).toList()) + (nodes.size() > 8 ? ",…" : "");
  }
}
