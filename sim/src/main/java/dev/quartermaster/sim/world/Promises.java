package dev.quartermaster.sim.world;

import dev.quartermaster.agent.discovery.ControlNode;
import dev.quartermaster.agent.ledger.ClaimState;
import dev.quartermaster.api.claim.PrepareState;
import dev.quartermaster.api.device.mps.MpsShares;
import dev.quartermaster.api.device.use.DeviceUse;
import dev.quartermaster.api.device.use.Parts;
import dev.quartermaster.api.gang.WorkloadGangs;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.api.workload.SpecDecision;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskTransitions;
import dev.quartermaster.control.cluster.Labels;
import dev.quartermaster.sim.node.SimProcesses;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The promises of DESIGN.md checked over the whole world — the store, every running agent's ledger,
 * and every live process on every node — after every step of a run. Each violation is a line that
 * starts with the promise's name.
 *
 * <ul>
 *   <li>I1 in the store: no device allocated to two claims. In a ledger: no device held by two
 *       claims. Among processes: no device used by two live processes of one node.
 *   <li>I2: every live process's claims are prepared (PrepareCompleted, with the devices it opened)
 *       in its node's ledger, whenever that node's agent runs.
 *   <li>I3: no claim with GPUs is prepared on a node (enters its ledger as PrepareCompleted) while
 *       one of the control nodes every GPU container needs is missing from the node's /dev.
 *   <li>I4: no task of a workload group is created while the group already has as many live tasks
 *       as the newest spec's replicas; no Running task that the newest spec still wants is deleted
 *       by a controller (operator deletions are told to {@link #operatorDeleted}), but for a gang
 *       that restarts as a whole ({@code RestartGang}) while one of its members has failed or was
 *       stopped from outside, and a gang stopped because it was partly placed (G3).
 *   <li>I5: no single-writer volume has two write claims in the store, nor two writable
 *       publications in the storage system; no single-node volume is claimed from, or attached to,
 *       two nodes; no two destructive controller calls overlap on the plugin.
 *   <li>I2 for volumes: every live process of a task that uses volumes has each of them published
 *       on its node, unless the process ran while its node was fenced: declared dead, its volumes
 *       detached from under it, it runs on (unfenced or not) only until its agent hears of it.
 *   <li>GRANT: a volume claim appears only for a task incarnation that may still run on the claim's
 *       node (exists, not finished, not being deleted, bound there): a claim granted from a stale
 *       task cache holds the volume for nobody.
 *   <li>I6: every claim a node acknowledged as prepared and has not released is still in its ledger
 *       after the agent crashed and came back ({@link #beforeCrash}, {@link #afterRestart}).
 *   <li>ACCESS: no write of an agent was refused by its node's access rule (each agent is held to
 *       the server's rule, so the rule must allow everything the real agent needs), a node an
 *       operator fenced aside: what its agent does with what the fence took is refused rightly.
 *   <li>PHASE: a finished task keeps its phase: it never runs again ({@link TaskTransitions}).
 *   <li>OWNER: no task, claim or volume that is not being deleted names an owner the store does not
 *       have (gone, or re-created under another uid): an owner's deletion waits for what it owns,
 *       and nothing else would delete an object made for it after that (a write that landed late).
 *   <li>TERM: every controller write commits under the leader's term it was decided in: none lands
 *       after a newer term began (a paused or cut-off leader's writes in flight), judged at each
 *       commit from the term each write records ({@link TermStamps}).
 *   <li>G1 all-or-nothing: a gang (a workload's group with a gang spec, or a workload's own gang
 *       over all its groups) whose members hold devices in the store (a claim of theirs allocated,
 *       or recorded in a node's allocation record) has been whole (each of its groups with at least
 *       its share, its {@code minMember}, holding) since it last held nothing: it goes from none to
 *       whole in one transaction, and may fall below whole only by losing members ({@link
 *       GangPromises}).
 *   <li>G2 topology: the live members of a gang that requires a topology key hold devices only on
 *       nodes of one value of it.
 *   <li>G3 whole or stopped: a gang whose live members hold devices, but fewer of some group than
 *       its share (less the members done for good, within what its queue admits), is stopped within
 *       {@link GangPromises#PARTIAL_BOUND}: a drain, a lost node or a crash never leaves it holding
 *       devices beside a member that cannot be placed with the others; it is placed again whole.
 *   <li>L4 writable leader: a running replica that holds the controllers' lease can write: it is
 *       never leading but unable to write for longer than {@link LeaderPromises#BOUND} ({@link
 *       LeaderPromises}).
 *   <li>HELD: a finished task's claims hold no device for longer than a bound while their node's
 *       agent runs: what Q1 no longer counts is not held ({@link ReleasePromises}).
 *   <li>FENCE: a node fenced for longer than a bound holds no claim (allocation, prepare state,
 *       agent finalizer) and no unfinished task: fencing frees what it says ({@link
 *       ReleasePromises}).
 *   <li>Q1, ADMIT and Q2 ({@link QueuePromises}); Q3 start timeout and Q4 backoff ({@link
 *       StartPromises}).
 *   <li>MIG-LEAK, MIG-SHARED and MIG-CAPS on nodes with MIG ({@link MigPromises}).
 *   <li>L2 progress: once the faults stop, while a gang that is not placed, with its members there
 *       to place, fits the free devices ({@link Capacity}), some gang is placed within {@link
 *       GangPromises#PROGRESS_BOUND}: gangs never deadlock one another.
 * </ul>
 */
final class Promises {
  private final WholeCluster world;
  private final Map<String, Task> lastTasks = new HashMap<>();
  private final Set<String> operatorDeleted = new HashSet<>();
  private final Map<String, Set<String>> acknowledged = new HashMap<>();

  /** Nodes whose journal was deleted since their agent last started. */
  private final Set<String> journalLost = new HashSet<>();

  /** Processes that were alive while their node was fenced ({@link #processKey}). */
  private final Set<String> declaredDead = new HashSet<>();

  /** Nodes an operator fenced at some point of the run. */
  private final Set<String> fencedEver = new HashSet<>();

  /** Per node, the claims its ledger held prepared with GPUs after the last step. */
  private final Map<String, Set<String>> lastPreparedGpus = new HashMap<>();

  /** The volume claims in the store after the last step ({@link #claimKey}). */
  private final Set<String> lastClaims = new HashSet<>();

  private final GangPromises gangs;
  private final SliceUses sliceUses = new SliceUses();
  private final QueuePromises queues;
  private final StartPromises starts;
  private final LeaderPromises leaders;
  private final ReleasePromises releases;
  private final MigPromises migs;

  Promises(WholeCluster world) {
    this.world = world;
    this.migs = new MigPromises(world);
    this.releases = new ReleasePromises(world);
    this.gangs = new GangPromises(world);
    this.starts = new StartPromises(world);
    this.queues = new QueuePromises(world, starts);
    this.leaders = new LeaderPromises(world);
  }

  GangPromises gangs() {
    return gangs;
  }

  QueuePromises queues() {
    return queues;
  }

  ReleasePromises releases() {
    return releases;
  }

  StartPromises starts() {
    return starts;
  }

  /** An operator deleted this task (or its workload): its deletion is no controller's doing. */
  void operatorDeleted(String task) {
    operatorDeleted.add(task);
  }

  List<String> check() {
    var out = new ArrayList<String>();
    // An agent refused a write by its node's access rule: the rule has a gap, or the agent
    // overreaches.
    world.refusals().forEach(r -> out.add("ACCESS: " + r));
    // Built once per check: it reads every node's slices, which at fleet scale is most of a check.
    var uses = uses();
    storeExclusive(uses, out);
    for (var n : world.nodes()) {
      n.ledger()
          .flatMap(l -> l.overConsumed(uses.apply(n.name)))
          .ifPresent(d -> out.add("I1 ledger of " + n.name + ": " + d));
      complete(n, out);
      processes(n, out);
    }
    // One map of the store's tasks per step, for every check that reads them.
    var tasks = new HashMap<String, Task>();
    world.view().tasks().forEach(t -> tasks.put(t.metadata().name(), t));
    finishedStayFinished(tasks, out);
    OwnerPromise.check(world.view(), out);
    world.view().termStamps().check(out);
    bounded(tasks, out);
    volumes(tasks, out);
    releases.check(tasks, out);
    gangs.check(out);
    queues.check(out);
    starts.check(out);
    leaders.check(out);
    migs.check(out);
    return out;
  }

  /**
   * PHASE: a task finished at the last check is still in that phase (same uid) — it never runs
   * again. Only a finished task is judged: between two checks a live one may make several moves.
   */
  private void finishedStayFinished(Map<String, Task> tasks, List<String> out) {
    for (var t : tasks.values()) {
      var before = lastTasks.get(t.metadata().name());
      if (before == null
          || !before.metadata().uid().equals(t.metadata().uid())
          || !before.status().phase().isFinished()) {
        continue;
      }
      var from = before.status().phase();
      var to = t.status().phase();
      TaskTransitions.refusal(from, to)
          .ifPresent(
              rule ->
                  out.add(
                      "PHASE task "
                          + t.metadata().name()
                          + ": "
                          + from
                          + " → "
                          + to
                          + " ("
                          + rule.text()
                          + ")"));
    }
  }

  private void volumes(Map<String, Task> tasks, List<String> out) {
    var storage = world.storage();
    world.nodes().stream().filter(n -> world.fenced(n.name)).forEach(n -> fencedEver.add(n.name));
    if (storage.overlaps() > 0) {
      out.add(
          "I5 plugin "
              + storage.plugin()
              + ": "
              + storage.overlaps()
              + " destructive calls overlapped");
    }
    grants(tasks, out);
    VolumeClaimPromise.check(world.view(), out);
    for (var v : world.view().volumes()) {
      var mode = v.spec().accessMode();
      boolean singleWriter = mode != AccessMode.MultiNodeMultiWriter;
      boolean singleNode =
          mode == AccessMode.SingleNodeWriter || mode == AccessMode.SingleNodeReaderOnly;
      if (v.status().externalId().isEmpty()) {
        continue;
      }
      // A fenced node's leftover target (its storage keeps node mounts on detach, as hostpath does)
      // is
      // the operator's declared-dead writer, not a second grant: its agent unpublishes it on return
      // (L1).
      var published =
          storage.writers(v.status().externalId()).stream()
              .filter(w -> !leftOnFencedNode(v, w))
              .toList();
      if (singleWriter && published.size() > 1) {
        out.add(
            "I5 storage: volume "
                + v.metadata().name()
                + " ("
                + mode
                + ") is published writable at "
                + published);
      }
      var attached = storage.attachedTo(v.status().externalId());
      if (singleNode && attached.size() > 1) {
        out.add(
            "I5 storage: volume "
                + v.metadata().name()
                + " ("
                + mode
                + ") is attached to "
                + attached);
      }
    }
    for (var n : world.nodes()) {
      if (world.fenced(n.name)) {
        // Declared dead by an operator: its claims were released on its behalf and detached, so
        // what
        // still runs there has lost its volumes (as after an EBS detach); no Running task is there.
        // That holds for those processes after an unfence too, until their agent hears and kills
        // them.
        n.host.tasks().alive().forEach(p -> declaredDead.add(processKey(n.name, p)));
        continue;
      }
      var published = storage.publishedOn(n.name);
      for (var p : n.host.tasks().alive()) {
        if (declaredDead.contains(processKey(n.name, p))) {
          continue;
        }
        for (var path : p.volumePaths()) {
          if (!published.contains(path)) {
            out.add(
                "I2 on "
                    + n.name
                    + ": pid "
                    + p.pid()
                    + " (task "
                    + p.task()
                    + ") runs with volume path "
                    + path
                    + ", which is not published there");
          }
        }
      }
    }
  }

  private void grants(Map<String, Task> tasks, List<String> out) {
    var claims = new HashSet<String>();
    for (var v : world.view().volumes()) {
      for (var c : v.status().claims()) {
        var key = claimKey(v, c);
        claims.add(key);
        if (lastClaims.contains(key)) {
          continue;
        }
        var t = tasks.get(c.task());
        var live =
            t != null
                && t.metadata().uid().equals(c.taskUid())
                && !t.status().phase().isFinished()
                && !t.metadata().isDeleting()
                && t.spec().node().filter(c.node()::equals).isPresent();
        if (!live) {
          out.add(
              "GRANT volume "
                  + v.metadata().name()
                  + ": claim for task "
                  + c.task()
                  + " (uid "
                  + c.taskUid()
                  + ") on "
                  + c.node()
                  + " granted while the task is "
                  + (t == null
                      ? "gone"
                      : t.status().phase()
                          + (t.metadata().isDeleting() ? ", deleting" : "")
                          + ", uid "
                          + t.metadata().uid()
                          + ", bound to "
                          + t.spec().node().orElse("no node")));
        }
      }
    }
    lastClaims.clear();
    lastClaims.addAll(claims);
  }

  private static String claimKey(Volume v, VolumeClaim c) {
    return v.metadata().uid() + "/" + c.task() + "/" + c.taskUid();
  }

  /**
   * Whether {@code nodeAndTarget} ({@code node:target}) is on a node once fenced, for a task uid no
   * claim of that node names.
   */
  private boolean leftOnFencedNode(Volume v, String nodeAndTarget) {
    var node = nodeAndTarget.substring(0, nodeAndTarget.indexOf(':'));
    return fencedEver.contains(node)
        && WholeCluster.orphan(v, node, nodeAndTarget.substring(node.length() + 1));
  }

  /**
   * One process of one node: its pid with its task and volume paths (which name the incarnation).
   */
  private static String processKey(String node, SimProcesses.Proc p) {
    return node + "|" + p.pid() + "|" + p.task() + "|" + p.volumePaths();
  }

  private void storeExclusive(
      java.util.function.Function<String, DeviceUse> uses, List<String> out) {
    ExclusiveUse.violations(world.view().claims(), uses).forEach(v -> out.add("I1 store: " + v));
  }

  /** Each node's device use as the store's slices say now. */
  private java.util.function.Function<String, DeviceUse> uses() {
    return sliceUses.of(world.view().slices());
  }

  private void complete(WholeCluster.NodeSlot n, List<String> out) {
    var ledger = n.ledger();
    if (ledger.isEmpty()) {
      return; // no agent runs: nothing is prepared meanwhile, and its next ledger is checked
      // against this one
    }
    var missing =
        ControlNode.requiredNodes().stream()
            .map(ControlNode::fileName)
            .filter(f -> !n.host.devices().present(f))
            .toList();
    var prepared = new HashSet<String>();
    ledger
        .get()
        .claims()
        .forEach(
            (uid, e) -> {
              if (e instanceof ClaimState.PrepareCompleted
                  && e.devices().stream().anyMatch(d -> d.startsWith("gpu-"))) {
                prepared.add(uid);
              }
            });
    var before = lastPreparedGpus.getOrDefault(n.name, Set.of());
    if (!missing.isEmpty()) {
      prepared.stream()
          .filter(uid -> !before.contains(uid))
          .forEach(
              uid ->
                  out.add(
                      "I3 on "
                          + n.name
                          + ": claim "
                          + uid
                          + " was prepared with GPUs while /dev/"
                          + String.join(", /dev/", missing)
                          + " is missing"));
    }
    lastPreparedGpus.put(n.name, prepared);
  }

  private void processes(WholeCluster.NodeSlot n, List<String> out) {
    var users = new HashMap<String, Long>();
    var ledger = n.ledger();
    partsBesideWholes(n, out);
    mpsDaemonsStopped(n, out);
    for (var p : n.host.tasks().alive()) {
      p.devices()
          .forEach(
              (uid, devices) -> {
                for (var d : devices) {
                  var other = users.putIfAbsent(d, p.pid());
                  if (other != null) {
                    out.add(
                        "I1 processes on "
                            + n.name
                            + ": "
                            + d
                            + " used by pid "
                            + other
                            + " and pid "
                            + p.pid()
                            + " (task "
                            + p.task()
                            + ")");
                  }
                }
                ledger.ifPresent(
                    l -> {
                      var entry = l.get(uid);
                      boolean backed =
                          entry
                              .filter(e -> e instanceof ClaimState.PrepareCompleted)
                              .filter(e -> e.devices().containsAll(devices))
                              .isPresent();
                      if (!backed) {
                        out.add(
                            "I2 on "
                                + n.name
                                + ": pid "
                                + p.pid()
                                + " (task "
                                + p.task()
                                + ") uses "
                                + devices
                                + " of claim "
                                + uid
                                + ", which the ledger holds as "
                                + entry.map(ClaimState::stateName).orElse("nothing"));
                      }
                    });
              });
    }
  }

  /** Per node, how much of its MPS daemons' log was read. */
  private final Map<String, Integer> mpsLogRead = new HashMap<>();

  /**
   * M1: the agent never stops (or restarts) a GPU's MPS daemon while a process runs on a share of
   * that GPU — its clients would lose their GPU work. A daemon that dies of a fault is not the
   * agent's doing; the agent starts it again.
   */
  private void mpsDaemonsStopped(WholeCluster.NodeSlot n, List<String> out) {
    var log = n.host.mpsDaemons().log();
    int from = mpsLogRead.getOrDefault(n.name, 0);
    mpsLogRead.put(n.name, log.size());
    for (var entry : log.subList(Math.min(from, log.size()), log.size())) {
      if (!entry.startsWith("stop ")) {
        continue;
      }
      var gpu = entry.substring("stop ".length());
      for (var p : n.host.tasks().alive()) {
        for (var devices : p.devices().values()) {
          for (var d : devices) {
            if (MpsShares.parse(d).filter(s -> s.gpu().equals(gpu)).isPresent()) {
              out.add(
                  "M1 on "
                      + n.name
                      + ": the MPS daemon of "
                      + gpu
                      + " was stopped while pid "
                      + p.pid()
                      + " (task "
                      + p.task()
                      + ") runs on its share "
                      + d);
            }
          }
        }
      }
    }
  }

  /**
   * I1 among processes for shared GPUs: a live process on a part of a GPU (a time-sliced replica, a
   * MIG slice) and one on the whole GPU are two claims on one GPU, whatever the names.
   */
  private static void partsBesideWholes(WholeCluster.NodeSlot n, List<String> out) {
    var whole = new HashMap<String, Long>();
    var parts = new HashMap<String, Long>();
    for (var p : n.host.tasks().alive()) {
      for (var devices : p.devices().values()) {
        for (var d : devices) {
          var parent = Parts.parentByName(d);
          if (parent.isPresent()) {
            parts.putIfAbsent(parent.get() + " (" + d + ")", p.pid());
          } else {
            whole.putIfAbsent(d, p.pid());
          }
        }
      }
    }
    parts.forEach(
        (part, pid) -> {
          var gpu = part.substring(0, part.indexOf(' '));
          var other = whole.get(gpu);
          if (other != null && other != pid.longValue()) {
            out.add(
                "I1 processes on "
                    + n.name
                    + ": "
                    + gpu
                    + " used whole by pid "
                    + other
                    + " and in part "
                    + part.substring(part.indexOf(' ') + 1)
                    + " by pid "
                    + pid);
          }
        });
  }

  private void bounded(Map<String, Task> tasks, List<String> out) {
    var replicas = new HashMap<String, Integer>();
    var deletingWorkloads = new HashSet<String>();
    // Group → its gang, for the gangs that restart as one (a workload gang: all its groups).
    var restartsAsOne = new HashMap<String, String>();
    for (var w : world.view().workloads()) {
      for (var g : w.spec().groups()) {
        replicas.put(w.metadata().name() + "/" + g.name(), g.replicas());
      }
      for (var gang : WorkloadGangs.of(w.spec())) {
        if (gang.restartsAsOne()) {
          gang.groups()
              .forEach(
                  g ->
                      restartsAsOne.put(
                          w.metadata().name() + "/" + g, w.metadata().name() + "/" + gang.name()));
        }
      }
      // An evicted workload's tasks all go (Q2 judges the eviction): as deleting as a deleted one.
      if (w.metadata().isDeleting()
          || QueuePromises.admittedIn(world.view(), w)
              .map(dev.quartermaster.api.queue.Admitted::evicting)
              .orElse(false)) {
        deletingWorkloads.add(w.metadata().name());
      }
    }
    // A RestartGang gang stops its running members, in all its groups, while one of them has
    // failed or was stopped from outside (GroupPlan's gangStop): those deletions are the policy's,
    // judged against the failure seen then or just before.
    var gangRestarting = new HashSet<String>();
    for (var from : List.of(lastTasks.values(), tasks.values())) {
      for (var t : from) {
        boolean lost =
            t.metadata().isDeleting()
                && !t.status().phase().isFinished()
                && !t.metadata().labels().containsKey(SpecDecision.SCALE_DOWN_AT);
        if ((t.status().phase() == TaskPhase.Failed || lost)
            && restartsAsOne.containsKey(groupOf(t))) {
          gangRestarting.add(restartsAsOne.get(groupOf(t)));
        }
      }
    }
    var created = new HashSet<String>();
    for (var t : tasks.values()) {
      var before = lastTasks.get(t.metadata().name());
      if (before == null || !before.metadata().uid().equals(t.metadata().uid())) {
        created.add(groupOf(t));
      }
      if (before != null
          && before.metadata().uid().equals(t.metadata().uid())
          && !before.metadata().isDeleting()
          && t.metadata().isDeleting()
          && before.status().phase() == TaskPhase.Running
          && !operatorDeleted.contains(t.metadata().name())
          && !deletingWorkloads.contains(workloadOf(t))
          && !gangRestarting.contains(restartsAsOne.get(groupOf(t)))
          && !partlyPlaced(t)) {
        int ordinal = Integer.parseInt(t.metadata().labels().getOrDefault(Labels.ORDINAL, "-1"));
        if (ordinal >= 0 && ordinal < replicas.getOrDefault(groupOf(t), 0)) {
          out.add(
              "I4 "
                  + groupOf(t)
                  + ": Running task "
                  + t.metadata().name()
                  + " deleted although the newest spec ("
                  + replicas.get(groupOf(t))
                  + " replicas) wants it");
        }
      }
    }
    for (var group : created) {
      long live =
          tasks.values().stream()
              .filter(
                  t ->
                      groupOf(t).equals(group)
                          && !t.metadata().isDeleting()
                          && !t.status().phase().isFinished())
              .count();
      int want = replicas.getOrDefault(group, 0);
      if (live > want && !group.startsWith("?")) {
        out.add(
            "I4 " + group + ": a create left " + live + " live tasks for " + want + " replicas");
      }
    }
    lastTasks.clear();
    lastTasks.putAll(tasks);
  }

  /**
   * Whether {@code t}'s gang was partly placed just now (G3): the workload controller stops every
   * member of such a gang, whatever its policy, so that it is placed again whole.
   */
  private boolean partlyPlaced(Task t) {
    var group = t.metadata().labels().get(Labels.GROUP);
    return group != null
        && t.metadata().owner().map(o -> gangs.recentlyPartial(o.uid(), group)).orElse(false);
  }

  /**
   * Remembers what the node acknowledged as prepared (Prepared in the store and held in the
   * ledger).
   */
  void beforeCrash(WholeCluster.NodeSlot n) {
    var held = new HashSet<String>();
    n.ledger()
        .ifPresent(
            l -> {
              for (var c : world.view().claims()) {
                var state = c.status().prepare().get(n.name);
                var entry = l.get(c.metadata().uid());
                if (state != null
                    && state.phase() == PrepareState.Phase.Prepared
                    && entry.filter(e -> e instanceof ClaimState.PrepareCompleted).isPresent()) {
                  held.add(c.metadata().uid());
                }
              }
            });
    acknowledged.put(n.name, held);
  }

  /** {@code n}'s journal and its mark were deleted while its agent was down. */
  void journalLost(WholeCluster.NodeSlot n) {
    journalLost.add(n.name);
  }

  /**
   * The operator started {@code n}'s agent with {@code --accept-lost-ledger}, forgetting {@code
   * lost}: I6 no longer asks the ledger for them (the operator's word, which only the refusal that
   * named them led to).
   */
  void acceptedLost(WholeCluster.NodeSlot n, List<String> lost) {
    var held = acknowledged.get(n.name);
    if (held != null) {
      lost.forEach(held::remove);
    }
  }

  /**
   * I6: what was acknowledged before the crash is in the reloaded ledger (before it syncs
   * anything).
   */
  List<String> afterRestart(WholeCluster.NodeSlot n) {
    var out = new ArrayList<String>();
    var ledger = n.ledger().orElseThrow();
    if (journalLost.remove(n.name)) {
      // What a deleted journal took, the agent learns only from the cluster: a claim the cluster no
      // longer believes prepared here (being deleted, deallocated) needs no ledger entry to go,
      // and the cross-check rightly does not ask for one. The rest it must have refused over.
      var still = new HashSet<String>();
      for (var c : world.view().claims()) {
        var state = c.status().prepare().get(n.name);
        if (!c.metadata().isDeleting()
            && c.status().allocation().filter(a -> a.node().equals(n.name)).isPresent()
            && state != null
            && state.phase() == PrepareState.Phase.Prepared) {
          still.add(c.metadata().uid());
        }
      }
      acknowledged.getOrDefault(n.name, new HashSet<>()).retainAll(still);
    }
    for (var uid : acknowledged.getOrDefault(n.name, Set.of())) {
      if (ledger.get(uid).filter(e -> e instanceof ClaimState.PrepareCompleted).isEmpty()) {
        out.add(
            "I6 "
                + n.name
                + ": claim "
                + uid
                + " was acknowledged as prepared before the crash and is "
                + ledger.get(uid).map(ClaimState::stateName).orElse("missing")
                + " after it");
      }
    }
    return out;
  }

  private static String workloadOf(Task t) {
    return t.metadata().labels().getOrDefault(Labels.WORKLOAD, "?");
  }

  private static String groupOf(Task t) {
    return workloadOf(t) + "/" + t.metadata().labels().getOrDefault(Labels.GROUP, "?");
  }
}
