package dev.quartermaster.control.allocator;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.api.gang.Gang;
import dev.quartermaster.api.gang.WorkloadGangs;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.allocator.AllocatorKey.ForGang;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.cluster.Labels;
import dev.quartermaster.core.queue.Result;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

/**
 * Places gangs: a worker group, or all of a workload's groups, whose members (each group's share:
 * its {@code minMember}) get their devices in one decision or none does (see {@code package-info},
 * "Gangs"); which gangs a workload has is {@link WorkloadGangs}'s to say. A gang's member is never
 * placed on its own until the gang holds devices: its task key only finishes what the gang's
 * decision reserved for it. Once the gang holds devices, members beyond each group's share (and
 * replacements of failed ones) are placed one by one through their own keys. A decision of more
 * writes than one transaction of the store takes is reserved in the gang ledger and carried out
 * from there ({@link GangReservations}); a gang's key finishes its reservation before deciding
 * anew.
 */
final class GangPlacer {
  private final Allocator allocator;
  private final Informers informers;
  private final DeviceIndex index;
  private final InFlightCommits commits;
  private final AllocationWrite write;
  private final Waiters waiters;
  private final EventRecorder events;
  private final Packing packing;
  private final GangReservations reservations;
  private final HeadOfLine line;
  private final HolderEnds ends;

  GangPlacer(
      Allocator allocator,
      Informers informers,
      DeviceIndex index,
      InFlightCommits commits,
      AllocationWrite write,
      Waiters waiters,
      EventRecorder events,
      Packing packing,
      GangReservations reservations,
      HeadOfLine line,
      HolderEnds ends) {
    this.line = line;
    this.ends = ends;
    this.allocator = allocator;
    this.informers = informers;
    this.index = index;
    this.commits = commits;
    this.write = write;
    this.waiters = waiters;
    this.events = events;
    this.packing = packing;
    this.reservations = reservations;
  }

  /** A gang as the caches show it: its key, workload, and what the spec makes of it. */
  private record Placing(ForGang key, Workload workload, Gang spec) {}

  /**
   * A live member: its claims (all of them exist, are its own and are not being deleted; none
   * listed while one is not), and those of its own claims that hold devices (allocated or
   * reserved), a claim being deleted under its running process included: a member that holds
   * devices keeps its gang placed.
   */
  private record Member(Task task, List<ResourceClaim> claims, List<ResourceClaim> holding) {
    String group() {
      return task.metadata().labels().getOrDefault(Labels.GROUP, "");
    }

    boolean holds() {
      return !holding.isEmpty();
    }

    List<ResourceClaim> pending() {
      return claims.stream().filter(c -> c.status().allocation().isEmpty()).toList();
    }
  }

  /** What a task's own key may do, given its gang: read once per decision of that key. */
  sealed interface Standing {
    /**
     * Be placed on its own: it is no gang's member, or its gang holds devices already (this member
     * is elastic, or replaces one) — on nodes of {@code within}, if the gang requires a value.
     */
    record Alone(Optional<TopologyValue> within) implements Standing {}

    /** Wait for {@code gang}'s decision, which places it with the others. */
    record WithGang(AllocatorKey gang) implements Standing {}
  }

  /** Where task {@code t} stands (see {@link Standing}). */
  Standing standingOf(Task t) {
    var gang = gangOf(t);
    if (gang.isEmpty()) {
      return new Standing.Alone(Optional.empty());
    }
    if (reservations.inFlight(gang.get().key())) {
      // Its gang's reservation writes it, with the others; placed on its own it would take other
      // devices than those reserved for it.
      return new Standing.WithGang(gang.get().key());
    }
    var members = members(gang.get());
    if (members.stream().noneMatch(Member::holds)) {
      return new Standing.WithGang(gang.get().key());
    }
    return new Standing.Alone(domainOf(gang.get(), members));
  }

  /**
   * Where a member placed on its own may go: a member of a placed gang that requires one value of a
   * topology key goes where its gang holds devices (the lowest-named such node's value); anything
   * else anywhere.
   */
  private Optional<TopologyValue> domainOf(Placing gang, List<Member> members) {
    var key = gang.spec().topology().required();
    if (key.isEmpty()) {
      return Optional.empty();
    }
    var nodes = new TreeSet<String>();
    for (var m : members) {
      for (var c : m.holding()) {
        c.status().allocation().ifPresent(a -> nodes.add(a.node()));
        nodes.addAll(index.reservationsOf(c.metadata().uid()).keySet());
      }
    }
    // No holder's node known (or labelled): a value no node has, so the member waits rather than
    // land outside its gang's domain.
    var value =
        nodes.stream()
            .map(n -> index.labelsOf(n).get(key.get()))
            .filter(v -> v != null)
            .findFirst()
            .orElse("");
    return Optional.of(new TopologyValue(key.get(), value));
  }

  /**
   * Decides {@code key}; a gang that waits for devices keeps its place in the {@link HeadOfLine},
   * any other outcome (placed, gone, nothing to place) takes it out, opening what it reserved.
   */
  Result reconcile(ForGang key, Waiters.Ticket ticket) {
    var waits = new AtomicBoolean();
    var result = decide(key, ticket, waits);
    if (!waits.get() && line.left(key.queueKey())) {
      allocator.reservationEnded();
    }
    return result;
  }

  private Result decide(ForGang key, Waiters.Ticket ticket, AtomicBoolean waits) {
    if (reservations.inFlight(key)) {
      // A decision made earlier (here, or by an allocator that crashed or lost leadership) is
      // finished before any other is made: the ledger says what it was.
      var outcome = reservations.carryOut(key);
      if (!(outcome instanceof GangReservations.Outcome.Absent)) {
        return settled(key, ticket, List.of(), outcome);
      }
    }
    var workload = informers.workloads().cache().get(key.workload());
    if (workload.isEmpty() || workload.get().metadata().isDeleting()) {
      return Result.done();
    }
    var spec = WorkloadGangs.named(workload.get().spec(), key.gang());
    if (spec.isEmpty()) {
      return Result.done();
    }
    var gang = new Placing(key, workload.get(), spec.get());
    var members = members(gang);
    if (members.stream().anyMatch(m -> m.holds())) {
      // Placed: whatever is left goes one by one.
      members.forEach(m -> allocator.enqueue(AllocatorKey.task(m.task().metadata().name())));
      return Result.done();
    }
    var ready =
        members.stream()
            .filter(m -> m.task().spec().node().isEmpty() && !m.claims().isEmpty())
            .sorted(Comparator.comparingInt(GangPlacer::ordinal))
            .toList();
    if (gang.spec().minMember() == 0 || ready.isEmpty()) {
      return Result.done(); // nothing to place; claimless members are the scheduler's
    }
    // Each group's share: its first ready members by ordinal, every group's in the one decision.
    var chosen = new ArrayList<Member>();
    for (var share : gang.spec().shares()) {
      var of = ready.stream().filter(m -> m.group().equals(share.group())).toList();
      if (of.size() < share.members()) {
        // The workload controller is still creating members and their claims: each one's arrival
        // queues the gang again. Nothing is written meanwhile (a word on every member's claims per
        // arrival would be quadratic in the gang's size); the workload's status tells it.
        waiters.park(key, ticket, NoPlacement.WAITING_FOR_GANG_MEMBERS.waitFor(false));
        return Result.done();
      }
      chosen.addAll(of.subList(0, share.members()));
    }
    var pending = chosen.stream().flatMap(m -> m.pending().stream()).toList();
    var classes = new HashMap<String, DeviceClass>();
    informers.deviceClasses().cache().list().forEach(c -> classes.put(c.metadata().name(), c));
    var refused = PlacementChecks.refusal(pending, informers, classes);
    if (refused.isPresent()) {
      return allocator.block(key, ticket, pending, refused.get().why(), refused.get().message());
    }
    var wanted =
        chosen.stream()
            .map(
                m -> new GangFit.Member(m.task().metadata().name(), Allocator.needsOf(m.pending())))
            .toList();
    var topology = gang.spec().topology();
    var closed =
        line.closedTo(key.queueKey(), allocator.endsBy(chosen.stream().map(Member::task).toList()));
    var devicesClosed = closed.map(HeadReservation::devices).orElse(Map.of());
    return switch (index.placeGang(wanted, classes, topology, packing, devicesClosed)) {
      case GangPlacement.Placed placed -> {
        try {
          yield commit(gang, ticket, chosen, members, placed);
        } finally {
          for (var node : placed.nodes()) {
            commits.end(node);
            waiters.happened(new WakeEvent.CommitEnded(node));
          }
        }
      }
      case GangPlacement.Busy busy -> {
        waits.set(true);
        waiters.park(
            key,
            ticket,
            new Waiters.Wait(
                "nodes " + new TreeSet<>(busy.nodes()) + " are being committed to",
                busy.nodes().stream()
                    .map(n -> (WakeEvent) new WakeEvent.CommitEnded(n))
                    .collect(Collectors.toSet())));
        yield Result.done();
      }
      case GangPlacement.NoSuchDeviceClass p ->
          allocator.block(key, ticket, pending, NoPlacement.NO_SUCH_DEVICE_CLASS, p.message());
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
        yield allocator.block(key, ticket, pending, NoPlacement.NEVER_FITS, message);
      }
      case GangPlacement.Short s -> {
        waits.set(true);
        var message = shortMessage(gang, wanted, s) + inLine(gang, wanted, classes, closed, waits);
        events.warning(gang.workload(), "GangWaiting", message);
        yield allocator.block(key, ticket, pending, NoPlacement.WAITING_FOR_GANG, message);
      }
    };
  }

  /**
   * Writes the gang's decision for {@code chosen}; once it stands, the rest of {@code members}
   * (beyond {@code minMember}) are placed one by one: their keys returned without waiting while the
   * gang held nothing, so nothing else would bring them back.
   */
  private Result commit(
      Placing gang,
      Waiters.Ticket ticket,
      List<Member> chosen,
      List<Member> members,
      GangPlacement.Placed placed) {
    var decided =
        chosen.stream()
            .map(
                m ->
                    new AllocationWrite.Decided(
                        m.pending(),
                        placed.byMember().get(m.task().metadata().name()),
                        Optional.of(m.task())))
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
            .forEach(m -> allocator.enqueue(AllocatorKey.task(m.task().metadata().name())));
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
        allocator.enqueue(AllocatorKey.node(a.node()));
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
        allocator.enqueue(key);
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
          allocator.block(
              key,
              ticket,
              pending,
              NoPlacement.GANG_TOO_LARGE,
              "gang " + key.name() + ": " + t.why() + "; keep it smaller (minMember, claims)");
    };
  }

  /**
   * The gang waits: its place in the {@link HeadOfLine}, and what that means, for its message. The
   * head reserves what it will get; a gang kept off the head's reservation says so; a gang that
   * could not fit even on an empty fleet reserves nothing and leaves the line ({@code waits}
   * cleared).
   */
  private String inLine(
      Placing gang,
      List<GangFit.Member> wanted,
      Map<String, DeviceClass> classes,
      Optional<HeadReservation> closed,
      AtomicBoolean waits) {
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
      return closed.map(r -> "; " + allocator.keptOff(r)).orElse("");
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
      waits.set(false); // it could not fit even an empty fleet: nothing to reserve
      return "";
    }
    if (r.get().start().isEmpty()) {
      // A start that is never known promises nothing, and would idle the devices for ever: it
      // reserves nothing and leaves the line, so the next gang may; it waits as before until the
      // jobs without a deadline end, and from then its start is bounded.
      waits.set(false);
      return "; nothing is reserved for it: a job without activeDeadlineSeconds holds devices it"
          + " needs, so no start time can be promised";
    }
    line.reserve(r.get());
    return "; " + reservedText(r.get());
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
        + allocator.at(r.start().orElseThrow())
        + ", when what holds them reaches its activeDeadlineSeconds; a smaller job takes them only"
        + " if its own deadline ends before then";
  }

  private static String nodeList(TreeSet<String> nodes) {
    return String.join(",", nodes.stream().limit(8).toList()) + (nodes.size() > 8 ? ",…" : "");
  }

  /**
   * {@code gang job/workers needs 4 × (4 gpu) at once on nodes of one
   * topology.quartermaster.dev/rack; at most 3 fit now (in rack-2)}; members that ask for different
   * devices (a workload gang's groups) are counted by what they ask for: {@code 1 × (1 gpu) + 8 ×
   * (4 gpu)}.
   */
  private static String shortMessage(
      Placing gang, List<GangFit.Member> wanted, GangPlacement.Short s) {
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
  private static String needs(Placing gang, List<GangFit.Member> wanted) {
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

  /** The gang task {@code t} belongs to, if its group is of one. */
  private Optional<Placing> gangOf(Task t) {
    var labels = t.metadata().labels();
    var workloadName = labels.get(Labels.WORKLOAD);
    var groupName = labels.get(Labels.GROUP);
    if (workloadName == null || groupName == null) {
      return Optional.empty();
    }
    var workload =
        informers
            .workloads()
            .cache()
            .get(workloadName)
            .filter(
                w ->
                    t.metadata()
                        .owner()
                        .map(o -> o.uid().equals(w.metadata().uid()))
                        .orElse(false));
    if (workload.isEmpty()) {
      return Optional.empty();
    }
    return WorkloadGangs.ofGroup(workload.get().spec(), groupName)
        .map(
            g ->
                new Placing(
                    (ForGang) AllocatorKey.gang(workloadName, g.name()), workload.get(), g));
  }

  /**
   * The gang's live members, of all its groups (of this workload, not finished, not being deleted)
   * and their claims; a member whose claims are not all there yet has none listed.
   */
  private List<Member> members(Placing gang) {
    var uid = gang.workload().metadata().uid();
    var out = new ArrayList<Member>();
    var tasks = new ArrayList<Task>();
    for (var group : gang.spec().groups()) {
      tasks.addAll(
          informers
              .tasks()
              .cache()
              .byIndex(Informers.BY_GROUP, gang.workload().metadata().name() + "/" + group));
    }
    for (var t : tasks) {
      if (!t.metadata().owner().map(o -> o.uid().equals(uid)).orElse(false)
          || t.metadata().isDeleting()
          || t.status().phase().isFinished()) {
        continue;
      }
      var claims = new ArrayList<ResourceClaim>();
      var holding = new ArrayList<ResourceClaim>();
      boolean whole = true;
      for (var name : t.spec().claims()) {
        var c =
            informers
                .claims()
                .cache()
                .get(name)
                .filter(
                    x ->
                        x.metadata()
                            .owner()
                            .map(o -> o.uid().equals(t.metadata().uid()))
                            .orElse(true));
        if (c.isPresent()
            && (c.get().status().allocation().isPresent()
                || !index.reservationsOf(c.get().metadata().uid()).isEmpty())) {
          holding.add(c.get());
        }
        if (c.isEmpty() || c.get().metadata().isDeleting()) {
          whole = false;
        } else {
          claims.add(c.get());
        }
      }
      out.add(new Member(t, whole ? claims : List.of(), holding));
    }
    return out;
  }

  private static int ordinal(Member m) {
    try {
      return Integer.parseInt(m.task().metadata().labels().getOrDefault(Labels.ORDINAL, ""));
    } catch (NumberFormatException e) {
      return Integer.MAX_VALUE;
    }
  }
}
