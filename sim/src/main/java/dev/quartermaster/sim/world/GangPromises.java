package dev.quartermaster.sim.world;

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
 * Issue 32's promises over the store, after every step ({@link Promises} lists them). A gang is a
 * workload's group with a gang spec (workload uid + group); its members are the tasks the workload
 * owns in that group, and a member <em>holds devices</em> while a claim it owns has an allocation
 * or an entry in a node's allocation record (of any incarnation of the member, deleting or not,
 * until the store lets go). A gang is <em>placed</em> once at least {@code minMember} members held
 * devices at once, and stays placed until none holds any.
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
   * One gang as the store shows it after a step.
   *
   * @param holders per member (task uid) holding devices, the nodes it holds them on
   * @param holding the claims (uids) by which its members hold devices
   * @param members its live members (not finished, not being deleted)
   * @param ready how many live members have all their claims (alive): what a decision may place
   * @param placed whether it has been whole since its holders were last none
   */
  record Gang(
      Workload workload,
      WorkerGroup group,
      Map<String, Set<String>> holders,
      Set<String> holding,
      List<Task> members,
      int ready,
      boolean placed) {

    String name() {
      return workload.metadata().name() + "/" + group.name();
    }

    int min() {
      return group.gangMinMember();
    }

    /** The GPUs one member asks for (every claim template's requests). */
    int gpus() {
      return group.claimTemplates().stream()
          .flatMap(t -> t.spec().requests().stream())
          .mapToInt(r -> r.count())
          .sum();
    }

    Optional<String> required() {
      return group.gang().flatMap(g -> g.topology().required());
    }

    /** Holds devices for fewer than {@code minMember} members and has not been placed: G1. */
    boolean partial() {
      return !placed && !holders.isEmpty();
    }
  }

  private final WholeCluster world;

  /** Task uid → its gang key; claim uid → its task's uid; task uid → name: learned as seen. */
  private final Map<String, String> gangOfTask = new HashMap<>();

  private final Map<String, String> taskOfClaim = new HashMap<>();
  private final Map<String, String> taskNames = new HashMap<>();

  /** The gangs placed (whole since their holders were last none), by key. */
  private final Set<String> placed = new HashSet<>();

  private List<Gang> gangs = List.of();
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

  GangPromises(WholeCluster world) {
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
        gangOfTask.putIfAbsent(t.metadata().uid(), owner.get().uid() + "/" + group);
        taskNames.putIfAbsent(t.metadata().uid(), t.metadata().name());
      }
    }
    var claimsByName = new HashMap<String, Boolean>();
    for (var c : view.claims()) {
      c.metadata().owner().ifPresent(o -> taskOfClaim.putIfAbsent(c.metadata().uid(), o.uid()));
      claimsByName.put(c.metadata().name(), !c.metadata().isDeleting());
    }
    var specs = new TreeMap<String, Gang>();
    for (var w : view.workloads()) {
      for (var g : w.spec().groups()) {
        if (g.gang().isPresent()) {
          var key = w.metadata().uid() + "/" + g.name();
          specs.put(
              key, new Gang(w, g, new TreeMap<>(), new HashSet<>(), new ArrayList<>(), 0, false));
        }
      }
    }
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
      } else if (holders >= g.min()) {
        placedNow |= placed.add(e.getKey());
      }
      int ready =
          (int)
              g.members().stream()
                  .filter(
                      t ->
                          t.spec().claims().stream()
                              .allMatch(n -> claimsByName.getOrDefault(n, false)))
                  .count();
      var gang =
          new Gang(
              g.workload(),
              g.group(),
              g.holders(),
              g.holding(),
              List.copyOf(g.members()),
              ready,
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
                + ", but it has not been whole since it last held nothing");
      }
      gang.required().ifPresent(key -> topology(gang, key, out));
    }
    gangs = List.copyOf(next);
    return placedNow;
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
    var key = gangOfTask.get(uid);
    return key == null ? null : specs.get(key);
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
        && g.ready() >= g.min()
        && capacity.fits(g.min(), g.gpus(), g.required(), Optional.empty());
  }

  /**
   * What keeps the gangs from their desired state (L1), empty when none: every member of a placed
   * gang runs or waits for devices that are not free where it may go, and a gang that is not placed
   * has its members and does not fit.
   */
  String notConverged() {
    var view = world.view();
    var capacity = Capacity.of(view, partialHoldings());
    for (var g : gangs) {
      if (g.workload().metadata().isDeleting()
          || QueuePromises.admittedIn(view, g.workload()).isEmpty()) {
        continue; // not admitted: it has no members yet, and QueuePromises judges its wait
      }
      var uid = g.workload().metadata().uid();
      var all =
          view.tasks().stream()
              .filter(
                  t -> (uid + "/" + g.group().name()).equals(gangOfTask.get(t.metadata().uid())))
              .toList();
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
      int wanted =
          Math.min(
              g.group().replicas(),
              QueuePromises.admittedIn(view, g.workload())
                  .map(a -> a.replicas().getOrDefault(g.group().name(), 0))
                  .orElse(0));
      if (g.members().size() != wanted) {
        return "gang " + g.name() + " wants " + wanted + ", has " + all.size();
      }
      if (!g.placed()) {
        if (g.min() > wanted) {
          continue; // its minMember waits for a scale-up its queue has not admitted
        }
        if (g.min() > 0
            && (g.ready() < g.min()
                || capacity.fits(g.min(), g.gpus(), g.required(), Optional.empty()))) {
          return "gang "
              + g.name()
              + " is not placed and "
              + (g.ready() < g.min()
                  ? "has " + g.ready() + " member(s) with their claims of " + g.min()
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
        boolean fits =
            pin.isPresent()
                ? capacity.free().getOrDefault(pin.get(), 0) >= g.gpus()
                : capacity.fits(1, g.gpus(), g.required(), domain);
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
