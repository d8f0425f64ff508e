package dev.quartermaster.control.allocator;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.gang.WorkloadGangs;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.control.allocator.AllocatorKey.ForGang;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.cluster.Labels;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The gangs and their members as the caches show them (which gangs a workload has is {@link
 * WorkloadGangs}'s to say), and where a task stands for its own key: a gang's member is never
 * placed on its own until the gang holds devices, and once it does, only within the gang's topology
 * value.
 */
final class GangMembers {
  private final Informers informers;
  private final DeviceIndex index;
  private final GangReservations reservations;

  GangMembers(Informers informers, DeviceIndex index, GangReservations reservations) {
    this.informers = informers;
    this.index = index;
    this.reservations = reservations;
  }

  /**
   * Gang {@code key} as the caches show it; empty when its workload is gone or going, or has no
   * such gang.
   */
  Optional<CachedGang> named(ForGang key) {
    var workload = informers.workloads().cache().get(key.workload());
    if (workload.isEmpty() || workload.get().metadata().isDeleting()) {
      return Optional.empty();
    }
    return WorkloadGangs.named(workload.get().spec(), key.gang())
        .map(g -> new CachedGang(key, workload.get(), g));
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
    var members = of(gang.get());
    if (members.stream().noneMatch(GangMember::holds)) {
      return new Standing.WithGang(gang.get().key());
    }
    return new Standing.Alone(domainOf(gang.get(), members));
  }

  /**
   * Where a member placed on its own may go: a member of a placed gang that requires one value of a
   * topology key goes where its gang holds devices (the lowest-named such node's value); anything
   * else anywhere.
   */
  private Optional<TopologyValue> domainOf(CachedGang gang, List<GangMember> members) {
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

  /** The gang task {@code t} belongs to, if its group is of one. */
  private Optional<CachedGang> gangOf(Task t) {
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
                new CachedGang(
                    (ForGang) AllocatorKey.gang(workloadName, g.name()), workload.get(), g));
  }

  /**
   * The gang's live members, of all its groups (of this workload, not finished, not being deleted)
   * and their claims; a member whose claims are not all there yet has none listed.
   */
  List<GangMember> of(CachedGang gang) {
    var uid = gang.workload().metadata().uid();
    var out = new ArrayList<GangMember>();
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
      out.add(new GangMember(t, whole ? claims : List.of(), holding));
    }
    return out;
  }
}
