package dev.quartermaster.control.allocator;

import dev.quartermaster.api.allocation.GangLedger;
import dev.quartermaster.api.allocation.GangLedgerSpec;
import dev.quartermaster.api.allocation.GangReservation;
import dev.quartermaster.api.allocation.ReservationPhase;
import dev.quartermaster.api.allocation.ReservationTransitions;
import dev.quartermaster.api.allocation.ReservedClaim;
import dev.quartermaster.api.allocation.ReservedMember;
import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.allocator.AllocatorKey.ForGang;
import dev.quartermaster.control.cluster.Informers;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Gang decisions too large for one store transaction, carried out through the {@link GangLedger}
 * (see {@code package-info}, "Gangs larger than one transaction"): the decision proposed in one
 * write, made {@code Held} by a second that the store checks against every record, then the
 * members' records, claims and pins written a few members per commit, then the reservation removed.
 * Each step reads the ledger and the members live and writes only what is missing, so whoever leads
 * next resumes from the ledger what a crashed allocator left; a reservation whose workload, member
 * or claim is gone is removed, giving back what it held. Thread-safe.
 */
final class GangReservations {
  /**
   * Removing a reservation retries a lost compare-and-set of the ledger this often, then requeues.
   */
  private static final int LEDGER_TRIES = 8;

  private final ApiClient api;
  private final Informers informers;
  private final AllocationWrite write;

  /**
   * Gangs this allocator has proposed and not yet removed: in flight even before the ledger's
   * informer shows them, so that no member is placed on its own meanwhile.
   */
  private final Set<String> proposed = ConcurrentHashMap.newKeySet();

  /**
   * Gangs whose reservation a live read found gone, and the ledger revision it was read at: a cache
   * still showing it at that revision or before is behind, and is not believed (a gang and its
   * members' keys would otherwise send each other back and forth until the cache caught up).
   */
  private final Map<String, Long> goneAt = new ConcurrentHashMap<>();

  GangReservations(ApiClient api, Informers informers, AllocationWrite write) {
    this.api = api;
    this.informers = informers;
    this.write = write;
  }

  /** What carrying out a reservation came to. */
  sealed interface Outcome {
    /** The ledger holds no reservation for the gang. */
    record Absent() implements Outcome {}

    /** Every member's writes are in and the reservation is removed: the gang is placed. */
    record Placed(GangReservation reservation, int commits) implements Outcome {}

    /** Not finished now (a lost race, a member changing): try again. */
    record Retry(String why) implements Outcome {}

    /** Removed without being finished, giving back what it held: decide again. */
    record Cancelled(String why) implements Outcome {}

    /**
     * Not placed, nor ever to be on this store: one member's own writes are more than one
     * transaction takes (no split can place it; its reservation is removed), or the reservation
     * alone is more than one request.
     */
    record TooLarge(String why) implements Outcome {}
  }

  /**
   * Whether gang {@code key} has a reservation in flight (as the ledger's cache shows it, or
   * proposed here); while the ledger has not been listed yet, every gang may have one, until a live
   * read finds it has none.
   */
  boolean inFlight(ForGang key) {
    if (proposed.contains(key.name())) {
      return true;
    }
    if (!informers.gangLedgers().hasSynced()) {
      return !goneAt.containsKey(key.name()); // unless a live read found none
    }
    var ledger = informers.gangLedgers().cache().get(GangLedger.NAME);
    if (ledger.flatMap(l -> l.spec().reservation(key.name())).isEmpty()) {
      goneAt.remove(key.name()); // the cache has caught up
      return false;
    }
    var gone = goneAt.get(key.name());
    return gone == null || ledger.get().metadata().revision() > gone;
  }

  /** The gangs the ledger's cache holds reservations for. */
  List<ForGang> cachedGangs() {
    return cached().reservations().keySet().stream().map(ForGang::new).toList();
  }

  private GangLedgerSpec cached() {
    return informers
        .gangLedgers()
        .cache()
        .get(GangLedger.NAME)
        .map(GangLedger::spec)
        .orElse(GangLedgerSpec.EMPTY);
  }

  /**
   * Whether {@code decided} fits one commit of this store: its records (one per node) and, per
   * member, its claims and its task.
   */
  boolean fitsOneCommit(List<AllocationWrite.Decided> decided) {
    return writes(decided) <= api.writesPerCommit();
  }

  private static int writes(List<AllocationWrite.Decided> decided) {
    var nodes = new HashSet<String>();
    int writes = 0;
    for (var d : decided) {
      if (nodes.add(d.placed().node())) {
        writes++;
      }
      writes += d.pending().size() + (d.unpinned().isPresent() ? 1 : 0);
    }
    return writes;
  }

  /** The reservation of a gang decision: each member's task, node, claims and devices. */
  static GangReservation of(Workload workload, String gang, List<AllocationWrite.Decided> decided) {
    var members = new ArrayList<ReservedMember>();
    for (var d : decided) {
      var task = d.unpinned().orElseThrow();
      var claims =
          d.pending().stream()
              .map(
                  c ->
                      new ReservedClaim(
                          c.metadata().name(),
                          c.metadata().uid(),
                          d.placed().devices().get(c.metadata().name())))
              .toList();
      members.add(
          new ReservedMember(
              task.metadata().name(), task.metadata().uid(), d.placed().node(), claims));
    }
    return new GangReservation(
        workload.metadata().name(),
        workload.metadata().uid(),
        gang,
        workload.metadata().generation(),
        ReservationPhase.Proposed,
        members);
  }

  /**
   * Writes {@code r} to the ledger (one write: the store judges it against every other reservation
   * and the records) and carries it out. A gang that has a reservation already gets that one
   * carried out instead.
   */
  Outcome propose(GangReservation r) {
    var ledger = api.get(Kinds.GANG_LEDGER, GangLedger.NAME);
    if (ledger.flatMap(l -> l.spec().reservation(r.key())).isEmpty()) {
      try {
        if (ledger.isEmpty()) {
          api.create(GangLedger.of(GangLedgerSpec.EMPTY.with(r)));
        } else {
          api.update(ledger.get().withSpec(ledger.get().spec().with(r)));
        }
      } catch (ApiException e) {
        if (e.is(Reason.Conflict) || e.is(Reason.AlreadyExists)) {
          // Another gang's reservation changed the ledger, or holds a device we chose: decide
          // again on fresh caches.
          return new Outcome.Retry(e.getMessage());
        }
        if (e.is(Reason.PayloadTooLarge)) {
          // The ledger with it is over a request's size: while other gangs' reservations are in
          // it, wait for them to be carried out; alone, this gang can never be reserved.
          boolean alone = ledger.map(l -> l.spec().reservations().isEmpty()).orElse(true);
          return alone
              ? new Outcome.TooLarge(
                  "its reservation is too large for the store: " + e.getMessage())
              : new Outcome.Retry(e.getMessage());
        }
        throw e;
      }
      goneAt.remove(r.key());
      proposed.add(r.key());
    }
    return carryOut(new ForGang(r.key()));
  }

  /**
   * Takes gang {@code key}'s reservation as far as it goes: removed if stale, made {@code Held},
   * then its members' writes, then removed. Idempotent: each step starts from the live ledger and
   * members.
   */
  Outcome carryOut(ForGang key) {
    var ledger = api.get(Kinds.GANG_LEDGER, GangLedger.NAME);
    var found = ledger.flatMap(l -> l.spec().reservation(key.name()));
    if (found.isEmpty()) {
      gone(key, ledger.map(l -> l.metadata().revision()).orElse(0L));
      return new Outcome.Absent();
    }
    var r = found.get();
    var survey = survey(r);
    if (survey.gone().isPresent()) {
      remove(key);
      return new Outcome.Cancelled(survey.gone().get());
    }
    if (r.phase() == ReservationPhase.Proposed) {
      try {
        api.update(ledger.get().withSpec(ledger.get().spec().with(ReservationTransitions.held(r))));
      } catch (ApiException e) {
        if (!e.is(Reason.Conflict)) {
          throw e;
        }
        var now = api.get(Kinds.GANG_LEDGER, GangLedger.NAME).map(l -> l.metadata().revision());
        if (!now.equals(ledger.map(l -> l.metadata().revision()))) {
          return new Outcome.Retry("the gang ledger changed"); // a compare-and-set lost
        }
        // The ledger is as read, so the store refused: a record write that raced the proposal
        // holds one of its devices. Nothing of the gang was written; it decides again.
        remove(key);
        return new Outcome.Cancelled(e.getMessage());
      }
    }
    int commits = 0;
    int perCommit = api.writesPerCommit();
    var todo = new ArrayList<>(survey.todo());
    while (!todo.isEmpty()) {
      var chunk = chunk(todo, perCommit);
      var decided = chunk.stream().map(Pending::decided).toList();
      WritePlan plan;
      try {
        plan = write.commitReserved(decided);
      } catch (ApiException e) {
        if (!e.is(Reason.PayloadTooLarge)) {
          throw e;
        }
        if (chunk.size() == 1) {
          remove(key);
          return new Outcome.TooLarge(
              "member "
                  + chunk.getFirst().member().task()
                  + "'s writes do not fit one transaction: "
                  + e.getMessage());
        }
        // A client that cannot tell the store's limit (HTTP) learns it here.
        perCommit = Math.max(1, writes(decided) / 2);
        continue;
      }
      switch (plan) {
        case WritePlan.Commit c -> {
          commits++;
          todo.subList(0, chunk.size()).clear();
        }
        case WritePlan.Stale s -> {
          return new Outcome.Retry(s.why());
        }
        case WritePlan.Taken t -> {
          return new Outcome.Retry("device " + t.device() + " is held by " + t.holder());
        }
        case WritePlan.AwaitAdoption a -> {
          return new Outcome.Retry("node " + a.node() + " adopts its claims from before records");
        }
      }
    }
    remove(key);
    return new Outcome.Placed(r, commits);
  }

  /** Removes gang {@code key}'s reservation from the ledger, if it is there. */
  void remove(ForGang key) {
    for (int i = 0; i < LEDGER_TRIES; i++) {
      var ledger = api.get(Kinds.GANG_LEDGER, GangLedger.NAME);
      if (ledger.flatMap(l -> l.spec().reservation(key.name())).isEmpty()) {
        gone(key, ledger.map(l -> l.metadata().revision()).orElse(0L));
        return;
      }
      try {
        var written = api.update(ledger.get().withSpec(ledger.get().spec().without(key.name())));
        gone(key, written.metadata().revision());
        return;
      } catch (ApiException e) {
        if (!e.is(Reason.Conflict)) {
          throw e;
        }
      }
    }
    throw new ApiException(
        Reason.Conflict, "gang ledger kept changing while removing reservation " + key.name());
  }

  private void gone(ForGang key, long ledgerRevision) {
    proposed.remove(key.name());
    goneAt.merge(key.name(), ledgerRevision, Math::max);
  }

  /** A member whose writes are not in yet, as its follow-up decision. */
  private record Pending(ReservedMember member, AllocationWrite.Decided decided) {}

  /**
   * The reservation against the live workload, tasks and claims: why it can no longer be carried
   * out (a member or claim gone, or one placed other than reserved), else its members not written
   * yet. A member is written when all its claims hold their reserved devices: its claims and pin go
   * in one commit, so never half.
   */
  private record Survey(Optional<String> gone, List<Pending> todo) {}

  private Survey survey(GangReservation r) {
    var workload =
        api.get(Kinds.WORKLOAD, r.workload())
            .filter(w -> w.metadata().uid().equals(r.workloadUid()) && !w.metadata().isDeleting());
    if (workload.isEmpty()) {
      return gone("workload " + r.workload() + " is gone");
    }
    var todo = new ArrayList<Pending>();
    for (var m : r.members()) {
      var live = new ArrayList<ResourceClaim>();
      boolean written = true;
      for (var rc : m.claims()) {
        var c =
            api.get(Kinds.RESOURCE_CLAIM, rc.claim())
                .filter(x -> x.metadata().uid().equals(rc.uid()) && !x.metadata().isDeleting());
        if (c.isEmpty()) {
          return gone("claim " + rc.claim() + " of member " + m.task() + " is gone");
        }
        var allocation = c.get().status().allocation();
        if (allocation.isPresent()
            && !allocation.get().equals(new Allocation(m.node(), rc.devices()))) {
          return gone("claim " + rc.claim() + " was allocated other devices");
        }
        written &= allocation.isPresent();
        live.add(c.get());
      }
      if (written) {
        continue;
      }
      var task =
          api.get(Kinds.TASK, m.task())
              .filter(
                  t ->
                      t.metadata().uid().equals(m.taskUid())
                          && !t.metadata().isDeleting()
                          && !t.status().phase().isFinished());
      if (task.isEmpty()) {
        return gone("member " + m.task() + " is gone");
      }
      if (task.get().spec().node().filter(n -> !n.equals(m.node())).isPresent()) {
        return gone("member " + m.task() + " is pinned to another node");
      }
      var devices = new HashMap<String, List<Allocation.AllocatedDevice>>();
      m.claims().forEach(rc -> devices.put(rc.claim(), rc.devices()));
      var pending = live.stream().filter(c -> c.status().allocation().isEmpty()).toList();
      Optional<Task> unpinned = task.filter(t -> t.spec().node().isEmpty());
      todo.add(
          new Pending(
              m,
              new AllocationWrite.Decided(
                  pending, new Placement.Placed(m.node(), devices), unpinned)));
    }
    return new Survey(Optional.empty(), todo);
  }

  private static Survey gone(String why) {
    return new Survey(Optional.of(why), List.of());
  }

  /** The first members of {@code todo} whose writes fit {@code perCommit} (at least one). */
  private static List<Pending> chunk(List<Pending> todo, int perCommit) {
    var out = new ArrayList<Pending>();
    var nodes = new HashSet<String>();
    int writes = 0;
    for (var p : todo) {
      var d = p.decided();
      int more =
          (nodes.contains(d.placed().node()) ? 0 : 1)
              + d.pending().size()
              + (d.unpinned().isPresent() ? 1 : 0);
      if (!out.isEmpty() && writes + more > perCommit) {
        break;
      }
      nodes.add(d.placed().node());
      writes += more;
      out.add(p);
    }
    return out;
  }
}
