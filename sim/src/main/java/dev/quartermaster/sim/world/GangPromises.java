package dev.quartermaster.sim.world;

import dev.quartermaster.api.gang.WorkloadGangs;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.cluster.Labels;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Issue 32's promises over the store, after every step ({@link Promises} lists them). A gang is one
 * of a workload's gangs as {@link WorkloadGangs} reads them (workload uid + gang name): a group's,
 * or the workload's own over all its groups; its members are the tasks the workload owns in its
 * groups, and a member <em>holds devices</em> while a claim it owns has an allocation or an entry
 * in a node's allocation record (of any incarnation of the member, deleting or not, until the store
 * lets go). A gang is <em>placed</em> once each of its groups had at least its share of members
 * holding devices at once, and stays placed until none holds any.
 */
final class GangPromises {
  /**
   * L2's bound. Once the faults stop, a gang that fits is placed by the allocator's next decision
   * for it: its key is queued by the change that freed the devices (a record, node or slice event,
   * late by at most the 2 s a watch event is delayed, or a re-list after a dropped one), and a
   * decision that lost a race is retried after a per-key backoff that starts at 5 ms and doubles,
   * reset by every success — a dozen lost races in a row stay under a minute. Nodes are back within
   * a heartbeat (10 s) of the heal. Two minutes leaves room for all of that at once and is still
   * far below the 20 minutes in which L1 waits for restarts paced up to 5 minutes apart.
   */
  static final Duration PROGRESS_BOUND = Duration.ofMinutes(2);

  /**
   * G3's bound. The workload controller stops a gang that has been partly placed for 30 s ({@code
   * GangRecovery}), timed on its own clock from when it first saw it so: a new leader (a lease of
   * 15 s), a pause past the lease (up to 40 s) and watch events late by 2 s may each add to that.
   * Two minutes covers them together.
   */
  static final Duration PARTIAL_BOUND = Duration.ofMinutes(2);

  /**
   * How long after the store last showed a gang partly placed a controller may still stop its
   * members for it: its caches trail the store by a watch event's delay.
   */
  static final Duration PARTIAL_SEEN = Duration.ofSeconds(10);

  /**
   * One gang as the store shows it after a step.
   *
   * @param spec the gang as the workload's spec makes it: its groups and their shares
   * @param holders per member (task uid) holding devices, the nodes it holds them on
   * @param holding the claims (uids) by which its members hold devices
   * @param members its live members (not finished, not being deleted), of all its groups
   * @param ready per group, how many live members have all their claims (alive): what a decision
   *     may place
   * @param placed whether it has been whole since its holders were last none
   */
  record Gang(
      Workload workload,
      dev.quartermaster.api.gang.Gang spec,
      Map<String, Set<String>> holders,
      Set<String> holding,
      List<Task> members,
      Map<String, Integer> ready,
      boolean placed) {

    String name() {
      return workload.metadata().name() + "/" + spec.name();
    }

    int min() {
      return spec.minMember();
    }

    /** The replicas of all its groups. */
    int replicas() {
      return workload.spec().groups().stream()
          .filter(g -> spec.has(g.name()))
          .mapToInt(WorkerGroup::replicas)
          .sum();
    }

    /** The GPUs one member of {@code group} asks for (every claim template's requests). */
    int gpusOf(String group) {
      return workload.spec().groups().stream()
          .filter(g -> g.name().equals(group))
          .flatMap(g -> g.claimTemplates().stream())
          .flatMap(t -> t.spec().requests().stream())
          .mapToInt(r -> r.count())
          .sum();
    }

    /**
     * The GPUs a member asks for at most: the gang is judged to fit where that many members of this
     * many GPUs each would (exactly so when its groups ask alike, as the simulation's do).
     */
    int gpus() {
      return spec.groups().stream().mapToInt(this::gpusOf).max().orElse(0);
    }

    Optional<String> required() {
      return spec.topology().required();
    }

    /** Whether every group has ready members for its share: a decision may place the gang. */
    boolean readyToPlace() {
      return readyCount() >= min();
    }

    /** The ready members, each group's counted up to its share. */
    int readyCount() {
      return spec.shares().stream()
          .mapToInt(s -> Math.min(ready.getOrDefault(s.group(), 0), s.members()))
          .sum();
    }

    /** Holds devices without being whole and has not been placed: G1. */
    boolean partial() {
      return !placed && !holders.isEmpty();
    }
  }

  private final Observed world;

  /**
   * Task uid → its group key (workload uid + group); claim uid → its task's uid; task uid → name:
   * learned as seen.
   */
  private final Map<String, String> groupOfTask = new HashMap<>();

  private final Map<String, String> taskOfClaim = new HashMap<>();
  private final Map<String, String> taskNames = new HashMap<>();

  /** Group key → the key of its gang (workload uid + gang name), as the last judged specs say. */
  private Map<String, String> gangOfGroup = Map.of();

  /** The gangs placed (whole since their holders were last none), by key. */
  private final Set<String> placed = new HashSet<>();

  private List<Gang> gangs = List.of();

  /** Per gang key, since when (virtual nanos) the store has shown it partly placed (G3). */
  private final Map<String, Long> partialSince = new HashMap<>();

  /** Per gang key, when the store last showed it partly placed. */
  private final Map<String, Long> partialSeen = new HashMap<>();

  private boolean judgeProgress;
  private Optional<Long> fitsSince = Optional.empty();

  /**
   * The store's revision when the gangs were last judged, and what that found (most steps commit
   * nothing: they are judged from it again, and only L2's clock moves).
   */
  private long judgedAt = -1;

  private List<String> found = List.of();
  private List<Gang> fitting = List.of();
  private String free = "";

  GangPromises(Observed world) {
    this.world = world;
  }

  /** The faults stopped: from now on L2 is judged. */
  void faultsStopped() {
    judgeProgress = true;
    judgedAt = -1;
  }

  /** The gangs as the last {@link #check} found them. */
  List<Gang> gangs() {
    return gangs;
  }

  /** The claims that hold devices for gangs that are not placed (none, while G1 holds). */
  Set<String> partialHoldings() {
    var out = new HashSet<String>();
    gangs.stream().filter(Gang::partial).forEach(g -> out.addAll(g.holding()));
    return out;
  }

  void check(List<String> out) {
    boolean placedNow = false;
    long revision = world.view().revision();
    if (revision != judgedAt) {
      judgedAt = revision;
      var lines = new ArrayList<String>();
      placedNow = judge(lines);
      found = List.copyOf(lines);
      if (judgeProgress) {
        var capacity = Capacity.of(world.view(), partialHoldings());
        fitting = gangs.stream().filter(g -> waitsAndFits(g, capacity)).toList();
        free = capacity.describe();
      }
    }
    out.addAll(found);
    if (judgeProgress) {
      progress(placedNow, out);
    }
  }

  /** G1 and G2 over the store as it is now, into {@code out}; whether a gang was placed since. */
  private boolean judge(List<String> out) {
    var view = world.view();
    for (var t : view.tasks()) {
      var owner = t.metadata().owner().filter(o -> o.kind().equals(Kinds.WORKLOAD.name()));
      var group = t.metadata().labels().get(Labels.GROUP);
      if (owner.isPresent() && group != null) {
        groupOfTask.putIfAbsent(t.metadata().uid(), owner.get().uid() + "/" + group);
        taskNames.putIfAbsent(t.metadata().uid(), t.metadata().name());
      }
    }
    var claimsByName = new HashMap<String, Boolean>();
    for (var c : view.claims()) {
      c.metadata().owner().ifPresent(o -> taskOfClaim.putIfAbsent(c.metadata().uid(), o.uid()));
      claimsByName.put(c.metadata().name(), !c.metadata().isDeleting());
    }
    var specs = new TreeMap<String, Gang>();
    var groups = new HashMap<String, String>();
    for (var w : view.workloads()) {
      for (var g : WorkloadGangs.of(w.spec())) {
        var key = w.metadata().uid() + "/" + g.name();
        specs.put(
            key,
            new Gang(
                w, g, new TreeMap<>(), new HashSet<>(), new ArrayList<>(), new HashMap<>(), false));
        g.groups().forEach(group -> groups.put(w.metadata().uid() + "/" + group, key));
      }
    }
    gangOfGroup = groups;
    for (var c : view.claims()) {
      c.status().allocation().ifPresent(a -> hold(specs, c.metadata().uid(), a.node()));
    }
    for (var r : view.records()) {
      r.spec().devices().values().forEach(h -> hold(specs, h.uid(), r.metadata().name()));
    }
    for (var t : view.tasks()) {
      var gang = gangOf(specs, t.metadata().uid());
      if (gang == null || t.metadata().isDeleting() || t.status().phase().isFinished()) {
        continue;
      }
      gang.members().add(t);
    }
    boolean placedNow = false;
    var next = new ArrayList<Gang>();
    for (var e : specs.entrySet()) {
      var g = e.getValue();
      int holders = g.holders().size();
      if (holders == 0) {
        placed.remove(e.getKey());
      } else if (whole(g)) {
        placedNow |= placed.add(e.getKey());
      }
      var ready = new HashMap<String, Integer>();
      g.members().stream()
          .filter(
              t -> t.spec().claims().stream().allMatch(n -> claimsByName.getOrDefault(n, false)))
          .forEach(t -> ready.merge(groupName(t.metadata().uid()), 1, Integer::sum));
      var gang =
          new Gang(
              g.workload(),
              g.spec(),
              g.holders(),
              g.holding(),
              List.copyOf(g.members()),
              Map.copyOf(ready),
              placed.contains(e.getKey()));
      next.add(gang);
      if (gang.partial()) {
        out.add(
            "G1 gang "
                + gang.name()
                + ": "
                + holders
                + " member(s) hold devices ("
                + holderNames(gang)
                + ") and minMember is "
                + gang.min()
                + (gang.spec().wholeWorkload() ? " (" + shares(gang) + ")" : "")
                + ", but it has not been whole since it last held nothing");
      }
      gang.required().ifPresent(key -> topology(gang, key, out));
      partlyPlaced(e.getKey(), gang, view, out);
    }
    partialSince.keySet().retainAll(specs.keySet());
    gangs = List.copyOf(next);
    return placedNow;
  }

  /**
   * G3: a gang whose live members hold devices, but fewer of some group than its share (within what
   * its queue admits, less the members done for good), is stopped within {@link #PARTIAL_BOUND}: a
   * drain, a lost node or a member that cannot be placed beside the others never leaves it holding
   * devices for a job that cannot run.
   */
  private void partlyPlaced(String key, Gang g, StoreView view, List<String> out) {
    var shortOf = shortGroups(g, view);
    long now = world.env().nanoTime();
    if (shortOf.isEmpty()) {
      partialSince.remove(key);
      return;
    }
    partialSeen.put(key, now);
    long since = partialSince.computeIfAbsent(key, k -> now);
    if (now - since > PARTIAL_BOUND.toNanos()) {
      out.add(
          "G3 gang "
              + g.name()
              + " partly placed for "
              + Duration.ofNanos(now - since).toSeconds()
              + " s: "
              + shortOf
              + "; its live members holding devices: "
              + liveHolderNames(g));
    }
  }

  /**
   * The groups of {@code g} that have fewer live members holding devices, or done for good, than
   * their share within what is admitted, while some live member holds devices; empty if none.
   */
  private String shortGroups(Gang g, StoreView view) {
    var live = new HashSet<String>();
    g.members().forEach(t -> live.add(t.metadata().uid()));
    var holding = new HashMap<String, Integer>();
    g.holders().keySet().stream()
        .filter(live::contains)
        .forEach(uid -> holding.merge(groupName(uid), 1, Integer::sum));
    if (holding.isEmpty()) {
      return "";
    }
    var admitted = QueuePromises.admittedIn(view, g.workload());
    var uid = g.workload().metadata().uid();
    var out = new ArrayList<String>();
    for (var group : g.workload().spec().groups()) {
      if (!g.spec().has(group.name())) {
        continue;
      }
      int need =
          Math.min(
              g.spec().shareOf(group.name()),
              admitted.map(a -> a.replicas().getOrDefault(group.name(), 0)).orElse(0));
      long done =
          view.tasks().stream()
              .filter(
                  t ->
                      t.metadata().owner().map(o -> o.uid().equals(uid)).orElse(false)
                          && group.name().equals(t.metadata().labels().get(Labels.GROUP))
                          && !t.metadata().isDeleting()
                          && doneForGood(group.restartPolicy(), t.status().phase()))
              .count();
      int have = holding.getOrDefault(group.name(), 0);
      if (have + done < need) {
        out.add("group " + group.name() + " has " + have + " of " + need + " holding");
      }
    }
    return String.join(", ", out);
  }

  /** A finished task its restart policy does not replace. */
  private static boolean doneForGood(
      dev.quartermaster.api.workload.RestartPolicy policy, TaskPhase phase) {
    return switch (policy) {
      case OnFailure -> phase == TaskPhase.Succeeded;
      case Always -> false;
      case Never -> phase.isFinished();
    };
  }

  private String liveHolderNames(Gang g) {
    var live = new HashSet<String>();
    g.members().forEach(t -> live.add(t.metadata().uid()));
    var names = new ArrayList<String>();
    g.holders()
        .forEach(
            (uid, nodes) -> {
              if (live.contains(uid)) {
                names.add(taskNames.getOrDefault(uid, uid) + " on " + nodes);
              }
            });
    return String.join(", ", names);
  }

  /**
   * Whether the store showed the gang of workload {@code workloadUid} and group {@code group}
   * partly placed within {@link #PARTIAL_SEEN}: the workload controller may be stopping its members
   * for it (I4 lets it).
   */
  boolean recentlyPartial(String workloadUid, String group) {
    var key = gangOfGroup.get(workloadUid + "/" + group);
    var seen = key == null ? null : partialSeen.get(key);
    return seen != null && world.env().nanoTime() - seen <= PARTIAL_SEEN.toNanos();
  }

  private void hold(Map<String, Gang> specs, String claimUid, String node) {
    var task = taskOfClaim.get(claimUid);
    var gang = task == null ? null : gangOf(specs, task);
    if (gang != null) {
      gang.holders().computeIfAbsent(task, t -> new TreeSet<>()).add(node);
      gang.holding().add(claimUid);
    }
  }

  /** The gang of task {@code uid} among {@code specs}, or null. */
  private Gang gangOf(Map<String, Gang> specs, String uid) {
    var key = gangKeyOf(uid);
    return key == null ? null : specs.get(key);
  }

  /** The key of task {@code uid}'s gang (workload uid + gang name), or null. */
  private String gangKeyOf(String uid) {
    var group = groupOfTask.get(uid);
    return group == null ? null : gangOfGroup.get(group);
  }

  /** The group of task {@code uid}, by name ("" if not known). */
  private String groupName(String uid) {
    var group = groupOfTask.getOrDefault(uid, "/");
    return group.substring(group.indexOf('/') + 1);
  }

  /** Whether each of its groups has at least its share of members holding devices. */
  private boolean whole(Gang g) {
    var holding = new HashMap<String, Integer>();
    g.holders().keySet().forEach(uid -> holding.merge(groupName(uid), 1, Integer::sum));
    return g.spec().shares().stream()
        .allMatch(s -> holding.getOrDefault(s.group(), 0) >= s.members());
  }

  /** {@code launcher 1, workers 2}: each group's share. */
  private static String shares(Gang g) {
    return String.join(
        ", ", g.spec().shares().stream().map(s -> s.group() + " " + s.members()).toList());
  }

  private String holderNames(Gang g) {
    var out = new ArrayList<String>();
    g.holders().forEach((uid, nodes) -> out.add(taskNames.getOrDefault(uid, uid) + " on " + nodes));
    return String.join(", ", out);
  }

  /**
   * G2: every live member that holds devices on nodes of one value of the required key. A member
   * that failed, or is being deleted, is not judged: its claims outlive it on a lost node until the
   * node is back or fenced, while the gang is placed again, whole, where it fits.
   */
  private void topology(Gang g, String key, List<String> out) {
    var live = g.members().stream().map(t -> t.metadata().uid()).collect(Collectors.toSet());
    var values = new TreeSet<String>();
    g.holders().entrySet().stream()
        .filter(e -> live.contains(e.getKey()))
        .map(Map.Entry::getValue)
        .forEach(
            nodes ->
                nodes.forEach(
                    n ->
                        values.add(
                            world
                                .view()
                                .node(n)
                                .map(x -> x.metadata().labels().getOrDefault(key, "(none)"))
                                .orElse("(node gone)"))));
    if (values.size() > 1 || values.contains("(none)")) {
      out.add(
          "G2 gang "
              + g.name()
              + " requires one value of "
              + key
              + ", and its live members hold devices in "
              + values
              + ": "
              + holderNames(g));
    }
  }

  /**
   * L2: while a gang that is not placed, with enough members to place, fits the free devices, some
   * gang is placed within {@link #PROGRESS_BOUND}.
   */
  private void progress(boolean placedNow, List<String> out) {
    long now = world.env().nanoTime();
    if (fitting.isEmpty()) {
      fitsSince = Optional.empty();
      return;
    }
    if (placedNow || fitsSince.isEmpty()) {
      fitsSince = Optional.of(now);
      return;
    }
    if (now - fitsSince.get() > PROGRESS_BOUND.toNanos()) {
      out.add(
          "L2: no gang placed for "
              + Duration.ofNanos(now - fitsSince.get()).toSeconds()
              + " s while "
              + fitting.stream()
                  .map(g -> g.name() + " (" + g.min() + " × " + g.gpus() + " GPU)")
                  .toList()
              + " waited and fitted ("
              + free
              + ")");
    }
  }

  /** Whether {@code g} is not placed, has members to place, and fits what is free. */
  static boolean waitsAndFits(Gang g, Capacity capacity) {
    return !g.placed()
        && g.min() > 0
        && g.readyToPlace()
        && capacity.fits(g.min(), g.gpus(), g.required(), Optional.empty());
  }

  /**
   * What keeps the gangs from their desired state (L1), empty when none: no gang is partly placed
   * (G3), every member of a placed gang runs or waits for devices that are not free where it may
   * go, and a gang that is not placed has its members and does not fit.
   */
  String notConverged() {
    var view = world.view();
    var capacity = Capacity.of(view, partialHoldings());
    for (var g : gangs) {
      var partly = shortGroups(g, view);
      if (!partly.isEmpty()) {
        return "gang " + g.name() + " is partly placed: " + partly; // G3 judges for how long
      }
      if (g.workload().metadata().isDeleting()
          || QueuePromises.admittedIn(view, g.workload()).filter(a -> !a.evicting()).isEmpty()) {
        continue; // not admitted (or evicted): no members wanted, and QueuePromises judges it
      }
      var key = g.workload().metadata().uid() + "/" + g.spec().name();
      var all =
          view.tasks().stream().filter(t -> key.equals(gangKeyOf(t.metadata().uid()))).toList();
      var gone =
          all.stream()
              .filter(t -> t.metadata().isDeleting() || t.status().phase().isFinished())
              .findFirst();
      if (gone.isPresent()) {
        return "gang "
            + g.name()
            + ": task "
            + gone.get().metadata().name()
            + " is "
            + gone.get().status().phase()
            + (gone.get().metadata().isDeleting() ? " (deleting)" : "");
      }
      // A scale-up waits for its queue to admit it (QueuePromises judges that wait): the gang
      // wants only the replicas admitted.
      var admitted = QueuePromises.admittedIn(view, g.workload());
      int wanted =
          g.workload().spec().groups().stream()
              .filter(x -> g.spec().has(x.name()))
              .mapToInt(
                  x ->
                      Math.min(
                          x.replicas(),
                          admitted.map(a -> a.replicas().getOrDefault(x.name(), 0)).orElse(0)))
              .sum();
      if (g.members().size() != wanted) {
        return "gang " + g.name() + " wants " + wanted + ", has " + all.size();
      }
      if (!g.placed()) {
        if (g.min() > wanted) {
          continue; // its minMember waits for a scale-up its queue has not admitted
        }
        if (g.min() > 0
            && (!g.readyToPlace()
                || capacity.fits(g.min(), g.gpus(), g.required(), Optional.empty()))) {
          return "gang "
              + g.name()
              + " is not placed and "
              + (!g.readyToPlace()
                  ? "has " + g.readyCount() + " member(s) with their claims of " + g.min()
                  : "fits (" + capacity.describe() + ")");
        }
        continue;
      }
      var domain = domainOf(g);
      for (var t : g.members()) {
        if (t.status().phase() == TaskPhase.Running) {
          continue;
        }
        boolean holds = g.holders().containsKey(t.metadata().uid());
        var pin = t.spec().node();
        int gpus = g.gpusOf(groupName(t.metadata().uid()));
        boolean fits =
            pin.isPresent()
                ? capacity.free().getOrDefault(pin.get(), 0) >= gpus
                : capacity.fits(1, gpus, g.required(), domain);
        if (holds || fits) {
          return "gang "
              + g.name()
              + ": member "
              + t.metadata().name()
              + " is "
              + t.status().phase()
              + (holds ? " holding devices" : " and fits (" + capacity.describe() + ")");
        }
      }
    }
    return "";
  }

  /** The value of the gang's required key where its members hold devices, if any. */
  private Optional<String> domainOf(Gang g) {
    return g.required()
        .flatMap(
            key ->
                g.holders().values().stream()
                    .flatMap(Set::stream)
                    .map(n -> world.view().node(n).map(x -> x.metadata().labels().get(key)))
                    .flatMap(Optional::stream)
                    .findFirst());
  }
}
