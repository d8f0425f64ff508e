package dev.quartermaster.sim.world;

import dev.quartermaster.agent.checkpoint.LostLedger;
import dev.quartermaster.agent.checkpoint.LostLedgerException;
import dev.quartermaster.api.claim.PrepareState;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.queue.OverQuota;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.control.cluster.NodeReadiness;
import dev.quartermaster.control.leader.LeaderConfig;
import dev.quartermaster.core.env.Env;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * The faults and operator actions of one seed, drawn from it: agent crashes (restarted after a
 * while, sometimes past the node grace period), partitions of a node from the server, device nodes
 * disappearing and coming back, GPUs turning unhealthy, API calls failing (before or after they
 * commit), leader fail-over, and an operator deleting claims and tasks, scaling in bursts, and
 * deleting and re-creating a claim by the same name (seed 1), cordoning nodes and fencing a node
 * that looks dead (it may be merely partitioned). Gangs get faults of their own, drawn over the
 * first {@link #GANG_WINDOW} (when gangs are being placed): the loss of a node under a placed gang
 * (its agent killed and the node cut off, past the grace period, and sometimes fenced), an agent
 * killed while a gang's claims are being prepared on its node, a node under a placed gang drained
 * (cordoned and its tasks deleted, for a minute or three), and a gang scaled up and down in bursts.
 * An operator lowers a team queue's GPU quota under what it uses (in two seeds of three), in half
 * of them asking for the excess back ({@code overQuota: Evict}). Control-plane replicas are paused
 * past their renew deadline (SIGSTOP), agents are paused while their tasks run on (sometimes past
 * the node grace, as the partitions bench pauses them), and the wall clocks of replicas and agents
 * step forwards and backwards. In most seeds a node that holds work dies for good and is fenced at
 * once by an operator who knows it ({@link #fenceDeadNode}), to come back only minutes later. A
 * killed agent's journal and its mark are sometimes deleted with it (issue 43 item 17): its next
 * start must refuse, naming the claims the cluster believes prepared there, until an operator
 * starts it with {@code --accept-lost-ledger}. Every other fault ends by itself or at {@link
 * #stopAndHeal}.
 */
final class Chaos {
  /** Faults are drawn over this much virtual time from the start. */
  static final Duration WINDOW = Duration.ofMinutes(5);

  /** Gang faults are drawn over this much virtual time from the start. */
  static final Duration GANG_WINDOW = Duration.ofSeconds(40);

  /**
   * Pauses and clock steps are drawn over this much virtual time from the start: the steps of a
   * default run cover about this much, and a pause must fall inside them to be seen.
   */
  static final Duration PROCESS_WINDOW = Duration.ofSeconds(30);

  /** How often, and how many times, a gang fault looks again for a gang to strike. */
  private static final Duration LOOK_AGAIN = Duration.ofMillis(500);

  private static final int LOOKS = 40;

  private final SeedRun run;
  private final WholeCluster world;
  private final RandomGenerator random;
  private final List<Env.Cancellable> pending = new ArrayList<>();
  private final List<String> violations = new ArrayList<>();
  private int faults;
  private boolean stopped;

  /**
   * Drained nodes → when (virtual nanos) the operator uncordons them: a drain is maintenance, and
   * outlasts the other faults ({@link #stopAndHeal} leaves them cordoned until then).
   */
  private final Map<String, Long> drainedUntil = new java.util.TreeMap<>();

  Chaos(SeedRun run, RandomGenerator random) {
    this.run = run;
    this.world = run.world();
    this.random = random;
  }

  int faults() {
    return faults;
  }

  /** Violations found while applying a fault (I6 at an agent's restart). */
  List<String> drainViolations() {
    var out = new ArrayList<>(violations);
    violations.clear();
    return out;
  }

  void schedule() {
    int count = 6 + random.nextInt(12);
    for (int i = 0; i < count; i++) {
      var at = Duration.ofMillis(random.nextLong(WINDOW.toMillis()));
      int kind = random.nextInt(12);
      later(at, () -> fault(kind));
    }
    // An operator changes a team queue's quota, once or twice a seed.
    int quotaChanges = 1 + random.nextInt(2);
    for (int i = 0; i < quotaChanges; i++) {
      var at = Duration.ofMillis(random.nextLong(WINDOW.toMillis()));
      var change = Queues.changeQuota(world.api(), random);
      later(
          at,
          () -> {
            run.event("operator: change a team queue's GPU quota");
            SeedRun.tolerant(change);
          });
    }
    // An operator lowers a team's GPU quota under what it uses now (issue 44): taken, it takes
    // effect as that team's workloads finish or are reclaimed (Q1's second form). Drawn from a
    // generator of its own, so that the rest of each seed's faults stay as they were.
    var shrinks = new java.util.SplittableRandom(run.seed() * 0x9E3779B97F4A7C15L + 44);
    if (shrinks.nextInt(3) != 0) {
      // Once the first admissions are in, early in the steps a default run checks.
      var at = Duration.ofMillis(3_000 + shrinks.nextLong(10_000));
      // In half of those seeds the operator asks for the excess back (overQuota: Evict, Q5), drawn
      // apart again so that the shrink itself stays as it was.
      boolean evict =
          new java.util.SplittableRandom(run.seed() * 0x9E3779B97F4A7C15L + 45).nextBoolean();
      var shrink =
          Queues.shrinkQuota(
              world.api(),
              shrinks.nextInt(2),
              1 + shrinks.nextInt(4),
              evict ? OverQuota.Evict : OverQuota.Wait);
      later(
          at,
          () -> {
            run.event(
                "operator: lower a team queue's GPU quota under what it uses"
                    + (evict ? ", with overQuota: Evict" : ""));
            SeedRun.tolerant(shrink);
          });
      // Then one job of the cohort is scaled down and another up: the first's admission shrinks in
      // a cohort over quota, and what it gave back must not go to the second (nor anyone) while
      // the cohort is over.
      var trim = at.plus(Duration.ofMillis(500 + shrinks.nextInt(2_000)));
      later(trim, () -> scaleAnAdmittedJob(-1, 0));
      later(trim.plus(Duration.ofMillis(500)), () -> scaleAnAdmittedJob(+1, 1));
    }
    // A control-plane process paused past its renew deadline, and wall clocks stepped.
    int pauses = random.nextInt(3);
    for (int i = 0; i < pauses; i++) {
      var at = Duration.ofMillis(random.nextLong(PROCESS_WINDOW.toMillis()));
      later(at, this::pauseReplica);
    }
    // Agents paused: drawn from a sequence of their own, so the faults drawn before this one was
    // added stay as they were for every seed.
    var agentPauses = new java.util.SplittableRandom(run.seed() * 0x9E3779B97F4A7C15L + 49);
    int agentPauseCount = agentPauses.nextInt(3);
    for (int i = 0; i < agentPauseCount; i++) {
      var at = Duration.ofMillis(agentPauses.nextLong(PROCESS_WINDOW.toMillis()));
      var length =
          Duration.ofMillis(
              agentPauses.nextBoolean()
                  ? 5_000 + agentPauses.nextLong(30_000)
                  : 45_000 + agentPauses.nextLong(30_000));
      int which = agentPauses.nextInt(1 << 16);
      later(at, () -> pauseAgent(which, length));
    }
    int jumps = random.nextInt(3);
    for (int i = 0; i < jumps; i++) {
      var at = Duration.ofMillis(random.nextLong(PROCESS_WINDOW.toMillis()));
      later(at, this::jumpClock);
    }
    if (random.nextInt(3) == 0) {
      later(Duration.ofMillis(random.nextLong(PROCESS_WINDOW.toMillis())), this::loseLedger);
    }
    int gangFaults = 1 + random.nextInt(3);
    for (int i = 0; i < gangFaults; i++) {
      var at = Duration.ofMillis(random.nextLong(GANG_WINDOW.toMillis()));
      int kind = random.nextInt(4);
      later(at, () -> gangFault(kind, LOOKS));
    }
    // In three seeds of four, a node dies for good while it holds work, and the operator, who
    // knows it, fences it at once.
    if (random.nextInt(4) != 0) {
      var at = Duration.ofMillis(FENCE_FROM.toMillis() + random.nextLong(FENCE_WITHIN.toMillis()));
      later(at, () -> fenceDeadNode(LOOKS));
    }
  }

  /**
   * On nodes with MIG, once to three times a seed: the agent is killed right after the driver made
   * an instance, before its prepare is recorded complete (the agent's call fails as a dead
   * process's would, and the kill follows at once); it comes back 1 to 20 s later and must adopt
   * the instance for the claim that wanted it, or destroy it if that claim is gone.
   */
  void migCrashes(RandomGenerator draws) {
    var migNodes = List.copyOf(world.migNodes());
    int count = 1 + draws.nextInt(3);
    for (int i = 0; i < count; i++) {
      var n = world.node(migNodes.get(draws.nextInt(migNodes.size())));
      var at = Duration.ofMillis(draws.nextLong(WINDOW.toMillis()));
      var back = Duration.ofMillis(1_000 + draws.nextLong(19_000));
      later(
          at,
          () -> {
            run.event("agent of " + n.name + " is to be killed right after its next MIG create");
            n.host
                .devices()
                .crashAfterNextCreate(() -> later(Duration.ZERO, () -> migCrash(n, back)));
          });
    }
  }

  /**
   * On nodes with MPS GPUs, two to four times within the MPS jobs' window: a GPU's MPS daemon dies
   * (as under {@code kill -9}, or an MPS server's fatal fault) while its clients run. The agent
   * must start it again, and never stop one while a client runs ({@link Promises}).
   */
  void mpsDaemonCrashes(RandomGenerator draws) {
    var nodes = List.copyOf(world.shareNodes());
    int count = 2 + draws.nextInt(3);
    for (int i = 0; i < count; i++) {
      var n = world.node(nodes.get(draws.nextInt(nodes.size())));
      var gpu = draws.nextBoolean() ? MpsJobs.STEADY : MpsJobs.SWITCHED;
      var at = Duration.ofMillis(draws.nextLong(TimeSliceJobs.WINDOW.toMillis()));
      later(
          at,
          () -> {
            if (n.host.mpsDaemons().running().contains(gpu)) {
              faults++;
              n.host.mpsDaemons().kill(gpu);
              run.event("the MPS daemon of " + gpu + " on " + n.name + " dies (-9)");
            }
          });
    }
  }

  private void migCrash(WholeCluster.NodeSlot n, Duration back) {
    if (n.agent.isEmpty()) {
      return;
    }
    faults++;
    run.promises().beforeCrash(n);
    world.crashAgent(n);
    run.event(
        "agent of "
            + n.name
            + " killed (-9) between a MIG create and its record; back in "
            + back.toSeconds()
            + "s");
    later(back, () -> restart(n));
  }

  /** When a dead node's fence may come: after the first work runs, within the steps' reach. */
  private static final Duration FENCE_FROM = Duration.ofSeconds(5);

  private static final Duration FENCE_WITHIN = Duration.ofSeconds(20);

  /** Nodes down for good and fenced: the heal leaves them to come back in their own time. */
  private final java.util.Set<String> downForGood = new java.util.TreeSet<>();

  /**
   * A node that holds prepared claims dies ({@code kill -9} of its agent, the machine unreachable)
   * and the operator fences it at once, as {@code qm node fence NODE --force} does, before the node
   * lifecycle has marked it lost. It stays down past {@link ReleasePromises#FENCE_BOUND}, beyond
   * the heal if need be, then comes back: reachable, its agent started again, unfenced and
   * uncordoned.
   */
  private void fenceDeadNode(int looks) {
    var holding =
        world.nodes().stream()
            .filter(n -> n.agent.isPresent() && !n.api.isCut() && !downForGood.contains(n.name))
            .filter(
                n ->
                    world.view().claims().stream()
                        .anyMatch(
                            c ->
                                c.status().prepare().containsKey(n.name)
                                    && c.status().prepare().get(n.name).phase()
                                        == PrepareState.Phase.Prepared))
            .toList();
    if (holding.isEmpty()) {
      if (looks > 1) {
        later(LOOK_AGAIN, () -> fenceDeadNode(looks - 1));
      }
      return;
    }
    faults++;
    var n = holding.get(random.nextInt(holding.size()));
    run.promises().beforeCrash(n);
    world.crashAgent(n);
    n.api.cut(true);
    downForGood.add(n.name);
    run.event("node " + n.name + " dies (agent killed, unreachable); operator: fence it --force");
    world.nodeSpec(n.name, sp -> sp.withUnschedulable(true).withFenced(true));
    var back = ReleasePromises.FENCE_BOUND.plus(seconds(40, 100));
    // Not through later(): the heal cancels that, and this node's return is the operator's, after
    // the machine is mended.
    world
        .env()
        .schedule(
            back,
            () -> {
              downForGood.remove(n.name);
              n.api.cut(false);
              run.event("node " + n.name + " mended: reachable again; operator: unfence, uncordon");
              world.nodeSpec(n.name, sp -> sp.withUnschedulable(false).withFenced(false));
              mended(n);
            });
  }

  /** The mended node's agent starts, again and again until it can (the heal may be over). */
  private void mended(WholeCluster.NodeSlot n) {
    if (n.agent.isPresent()) {
      return;
    }
    try {
      world.startAgent(n);
    } catch (RuntimeException e) {
      world.env().schedule(Duration.ofSeconds(5), () -> mended(n));
      return;
    }
    run.event("agent of " + n.name + " started again");
    violations.addAll(run.promises().afterRestart(n));
  }

  private void gangFault(int kind, int looks) {
    boolean struck =
        switch (kind) {
          case 0 -> loseNodeUnderGang();
          case 1 -> crashDuringGangPrepare();
          case 2 -> drainUnderGang();
          default -> scaleGang();
        };
    if (struck) {
      faults++;
    } else if (looks > 1) {
      later(LOOK_AGAIN, () -> gangFault(kind, looks - 1));
    }
  }

  /**
   * A node under a placed gang is lost: its agent killed and the node cut off past the grace period
   * (its tasks are declared lost), back after a while; half the time an operator fences it first.
   */
  private boolean loseNodeUnderGang() {
    var nodes =
        run.promises().gangs().gangs().stream()
            .filter(GangPromises.Gang::placed)
            .flatMap(g -> g.holders().values().stream())
            .flatMap(java.util.Set::stream)
            .distinct()
            .sorted()
            .toList();
    var candidates = nodes.stream().map(world::node).filter(n -> n.agent.isPresent()).toList();
    if (candidates.isEmpty()) {
      return false;
    }
    var n = candidates.get(random.nextInt(candidates.size()));
    run.promises().beforeCrash(n);
    world.crashAgent(n);
    n.api.cut(true);
    var back = seconds(45, 120);
    run.event(
        "node "
            + n.name
            + " lost under a placed gang (agent killed, cut off); back in "
            + back.toSeconds()
            + "s");
    if (random.nextBoolean()) {
      later(
          WholeCluster.GRACE.plus(seconds(5, 15)),
          () -> {
            var node = world.api().get(Kinds.NODE, n.name).orElseThrow();
            if (!NodeReadiness.isSchedulable(node) && !node.spec().fenced()) {
              run.event("operator: fence " + n.name + " (lost)");
              world.nodeSpec(n.name, sp -> sp.withFenced(true));
            }
          });
    }
    later(
        back,
        () -> {
          if (downForGood.contains(n.name)) {
            return;
          }
          n.api.cut(false);
          run.event(n.name + " reachable again");
          restart(n);
        });
    return true;
  }

  /**
   * An operator drains a node under a placed gang, as {@code qm node drain --force} does: cordons
   * it and deletes every task on it (their workloads make them again elsewhere), and uncordons it
   * after a while. A gang with a member there must not be left holding devices for the others while
   * that member's replacement finds no room beside them (G3).
   */
  private boolean drainUnderGang() {
    var candidates =
        run.promises().gangs().gangs().stream()
            .filter(GangPromises.Gang::placed)
            .flatMap(g -> g.holders().values().stream())
            .flatMap(java.util.Set::stream)
            .distinct()
            .sorted()
            .toList();
    if (candidates.isEmpty()) {
      return false;
    }
    var node = candidates.get(random.nextInt(candidates.size()));
    var tasks =
        world.view().tasks().stream()
            .filter(
                t ->
                    node.equals(t.status().node().or(() -> t.spec().node()).orElse(""))
                        && !t.metadata().isDeleting())
            .map(t -> t.metadata().name())
            .sorted()
            .toList();
    var back = seconds(60, 180);
    run.event(
        "operator: drain "
            + node
            + " (cordon, delete "
            + tasks
            + "); uncordoned in "
            + back.toSeconds()
            + "s");
    world.nodeSpec(node, sp -> sp.withUnschedulable(true));
    drainedUntil.put(node, world.env().nanoTime() + back.toNanos());
    for (var t : tasks) {
      run.promises().operatorDeleted(t);
      SeedRun.tolerant(() -> world.api().delete(Kinds.TASK, t));
    }
    later(
        back,
        () -> {
          run.event("operator: uncordon " + node + " (drained)");
          drainedUntil.remove(node);
          world.nodeSpec(node, sp -> sp.withUnschedulable(false));
        });
    return true;
  }

  /** The agent of a node on which a gang's claim is allocated and not yet prepared is killed. */
  private boolean crashDuringGangPrepare() {
    var holding = new java.util.HashSet<String>();
    run.promises().gangs().gangs().forEach(g -> holding.addAll(g.holding()));
    var nodes =
        world.view().claims().stream()
            .filter(c -> holding.contains(c.metadata().uid()))
            .flatMap(c -> c.status().allocation().stream().map(a -> Map.entry(a.node(), c)))
            .filter(
                e -> {
                  var state = e.getValue().status().prepare().get(e.getKey());
                  return state == null || state.phase() != PrepareState.Phase.Prepared;
                })
            .map(Map.Entry::getKey)
            .distinct()
            .sorted()
            .map(world::node)
            .filter(n -> n.agent.isPresent())
            .toList();
    if (nodes.isEmpty()) {
      return false;
    }
    var n = nodes.get(random.nextInt(nodes.size()));
    run.promises().beforeCrash(n);
    world.crashAgent(n);
    var back = seconds(1, 20);
    run.event(
        "agent of "
            + n.name
            + " killed (-9) while preparing a gang's claims; back in "
            + back.toSeconds()
            + "s");
    later(back, () -> restart(n));
    return true;
  }

  /** An operator scales a gang up and down in a burst. */
  private boolean scaleGang() {
    var jobs = run.gangs();
    var job = jobs.get(random.nextInt(jobs.size()));
    int changes = 1 + random.nextInt(3);
    long at = 0;
    for (int i = 0; i < changes; i++) {
      int replicas = job.minReplicas() + random.nextInt(job.maxReplicas() - job.minReplicas() + 1);
      at += 50 + random.nextInt(151);
      later(
          Duration.ofMillis(at),
          () -> {
            if (world.view().workloads().stream()
                .noneMatch(w -> w.metadata().name().equals(job.name()))) {
              return; // not applied yet (the urgent job comes late)
            }
            run.event("operator: scale gang " + job.name() + " to " + replicas);
            SeedRun.tolerant(() -> world.scale(job.name(), replicas));
          });
    }
    return true;
  }

  /**
   * An operator scales by {@code by} the {@code nth} (0: first) gang job admitted in the team
   * queues' cohort that the change leaves within its bounds.
   */
  private void scaleAnAdmittedJob(int by, int nth) {
    var ledger = world.api().get(Kinds.QUOTA_LEDGER, Queues.COHORT);
    if (ledger.isEmpty()) {
      return;
    }
    int skip = nth;
    for (var job : run.gangs()) {
      var entry = ledger.get().spec().admitted().get(job.name());
      var w =
          world.view().workloads().stream()
              .filter(x -> x.metadata().name().equals(job.name()))
              .findFirst();
      if (entry == null || entry.evicting() || w.isEmpty()) {
        continue;
      }
      int replicas = w.get().spec().groups().getFirst().replicas() + by;
      if (replicas < job.minReplicas() || replicas > job.maxReplicas() || skip-- > 0) {
        continue;
      }
      run.event("operator: scale gang " + job.name() + " to " + replicas);
      SeedRun.tolerant(() -> world.scale(job.name(), replicas));
      return;
    }
  }

  /**
   * A control-plane replica (the leader, two times in three) stops for a while, as under SIGSTOP, a
   * long GC or a frozen VM: past the renew deadline, and half the time past the lease too (then the
   * other replica may take over; below it, the paused one finds the lease still its own).
   */
  private void pauseReplica() {
    var running = world.replicas().stream().filter(r -> !r.process().isPaused()).toList();
    if (running.isEmpty()) {
      return;
    }
    var leader = running.stream().filter(r -> r.plane().isLeader()).findFirst();
    var r =
        leader.isPresent() && random.nextInt(3) < 2
            ? leader.get()
            : running.get(random.nextInt(running.size()));
    var lease = LeaderConfig.DEFAULTS.leaseDuration().toMillis();
    var deadline = LeaderConfig.DEFAULTS.renewDeadline().toMillis();
    var length =
        Duration.ofMillis(
            random.nextBoolean()
                ? deadline + 500 + random.nextLong(lease - deadline - 500)
                : lease + random.nextLong(25_000));
    faults++;
    r.process().pause();
    run.event(
        "replica "
            + r.identity()
            + (r.plane().isLeader() ? " (leading)" : "")
            + " paused (SIGSTOP) for "
            + length.toMillis()
            + " ms");
    later(
        length,
        () -> {
          r.process().resume();
          run.event("replica " + r.identity() + " resumed (SIGCONT)");
        });
  }

  /**
   * An agent stops for {@code length} (SIGSTOP, a frozen VM) while its node's task processes run
   * on: what reaches it waits, its heartbeats stop (past 40 s the node is NotReady), and it resumes
   * to act on what it saw before. A crash while paused ends the pause ({@link
   * WholeCluster#crashAgent}).
   */
  private void pauseAgent(int which, Duration length) {
    var running =
        world.nodes().stream().filter(n -> n.agent.isPresent() && !n.process.isPaused()).toList();
    if (running.isEmpty()) {
      return;
    }
    var n = running.get(which % running.size());
    faults++;
    n.process.pause();
    run.event("agent of " + n.name + " paused (SIGSTOP) for " + length.toMillis() + " ms");
    later(
        length,
        () -> {
          if (n.process.isPaused()) {
            n.process.resume();
            run.event("agent of " + n.name + " resumed (SIGCONT)");
          }
        });
  }

  /** The wall clock of a replica or an agent steps forwards or backwards (an NTP step). */
  private void jumpClock() {
    faults++;
    var by = Duration.ofMillis(1000 + random.nextLong(300_000));
    var signed = random.nextBoolean() ? by : by.negated();
    var replicas = world.replicas();
    if (random.nextBoolean() && !replicas.isEmpty()) {
      var r = replicas.get(random.nextInt(replicas.size()));
      r.process().jumpClock(signed);
      run.event("replica " + r.identity() + "'s wall clock stepped by " + signed.toSeconds() + "s");
    } else {
      var n = anyNode();
      n.process.jumpClock(signed);
      run.event(n.name + "'s wall clock stepped by " + signed.toSeconds() + "s");
    }
  }

  private void later(Duration delay, Runnable action) {
    pending.add(
        world
            .env()
            .schedule(
                delay,
                () -> {
                  if (!stopped) {
                    action.run();
                  }
                }));
  }

  private Duration seconds(int min, int max) {
    return Duration.ofMillis(1000L * min + random.nextLong(1000L * (max - min) + 1));
  }

  private WholeCluster.NodeSlot anyNode() {
    var nodes = world.nodes();
    return nodes.get(random.nextInt(nodes.size()));
  }

  private void fault(int kind) {
    faults++;
    var n = anyNode();
    switch (kind) {
      case 0 -> {
        if (n.agent.isEmpty()) {
          return;
        }
        run.promises().beforeCrash(n);
        world.crashAgent(n);
        var back = random.nextBoolean() ? seconds(1, 20) : seconds(45, 120);
        run.event("agent of " + n.name + " killed (-9); back in " + back.toSeconds() + "s");
        later(back, () -> restart(n));
      }
      case 1 -> {
        if (n.api.isCut()) {
          return;
        }
        n.api.cut(true);
        var heal = seconds(5, 120);
        run.event(n.name + " partitioned from the server for " + heal.toSeconds() + "s");
        later(
            heal,
            () -> {
              if (!downForGood.contains(n.name)) {
                n.api.cut(false);
                run.event(n.name + " partition healed");
              }
            });
      }
      case 2 -> {
        var names = n.host.devices().nodeNames();
        var file = names.get(random.nextInt(names.size()));
        n.host.devices().remove(file);
        var back = seconds(2, 40);
        run.event(n.name + ": /dev/" + file + " removed for " + back.toSeconds() + "s");
        later(
            back,
            () -> {
              n.host.devices().restore(file);
              run.event(n.name + ": /dev/" + file + " restored");
            });
      }
      case 3 -> {
        var gpu = "gpu-" + random.nextInt(4);
        n.host.devices().setHealthy(gpu, false);
        var back = seconds(5, 60);
        run.event(n.name + ": " + gpu + " unhealthy for " + back.toSeconds() + "s");
        later(back, () -> n.host.devices().setHealthy(gpu, true));
      }
      case 4 -> {
        world.failRate(0.05);
        var back = seconds(5, 30);
        run.event("5% of API calls fail for " + back.toSeconds() + "s");
        later(back, () -> world.failRate(0));
      }
      case 5 -> {
        run.event("leader fails over");
        world.failOverLeader();
      }
      case 6 -> {
        var claims = world.api().list(Kinds.RESOURCE_CLAIM).items();
        if (!claims.isEmpty()) {
          var c = claims.get(random.nextInt(claims.size())).metadata().name();
          run.event("operator: delete resourceclaim " + c);
          SeedRun.tolerant(() -> world.api().delete(Kinds.RESOURCE_CLAIM, c));
        }
      }
      case 7 -> {
        var tasks = world.api().list(Kinds.TASK).items();
        if (!tasks.isEmpty()) {
          var t = tasks.get(random.nextInt(tasks.size())).metadata().name();
          run.event("operator: delete task " + t);
          run.promises().operatorDeleted(t);
          SeedRun.tolerant(() -> world.api().delete(Kinds.TASK, t));
        }
      }
      case 8 -> {
        int changes = 2 + random.nextInt(4);
        long at = 0;
        for (int i = 0; i < changes; i++) {
          int replicas = random.nextInt(9);
          at += 50 + random.nextInt(151);
          later(Duration.ofMillis(at), () -> scale(replicas));
        }
      }
      case 10 -> {
        run.event("operator: cordon " + n.name);
        world.nodeSpec(n.name, sp -> sp.withUnschedulable(true));
        later(
            seconds(5, 60),
            () -> {
              run.event("operator: uncordon " + n.name);
              world.nodeSpec(n.name, sp -> sp.withUnschedulable(false));
            });
      }
      case 11 -> {
        // An operator fences only a node that looks dead; here it may be merely partitioned.
        var node = world.api().get(Kinds.NODE, n.name).orElseThrow();
        if (NodeReadiness.isSchedulable(node) || node.spec().fenced()) {
          return;
        }
        run.event("operator: fence " + n.name + " (NotReady)");
        world.nodeSpec(n.name, sp -> sp.withFenced(true));
      }
      default -> {
        // Seed 1: the stand-alone claim deleted and created again by the same name at once.
        run.event("operator: delete and re-create resourceclaim " + SeedRun.SOLO + "-gpu");
        SeedRun.tolerant(() -> world.api().delete(Kinds.RESOURCE_CLAIM, SeedRun.SOLO + "-gpu"));
        later(
            Duration.ofMillis(1),
            () -> SeedRun.tolerant(() -> world.api().create(SeedRun.soloClaim())));
      }
    }
  }

  private void scale(int replicas) {
    run.event("operator: scale " + SeedRun.WORKLOAD + " to " + replicas);
    SeedRun.tolerant(() -> world.scale(SeedRun.WORKLOAD, replicas));
  }

  private void restart(WholeCluster.NodeSlot n) {
    if (n.agent.isPresent() || downForGood.contains(n.name)) {
      return;
    }
    try {
      world.startAgent(n);
    } catch (RuntimeException e) {
      if (e.getCause() instanceof LostLedgerException lost) {
        refusedLostLedger(n, lost);
        return;
      }
      // As under systemd: an agent that cannot reach the server at start exits and is started
      // again.
      run.event(
          "agent of " + n.name + " failed to start (" + e.getMessage() + "); trying again in 5s");
      later(Duration.ofSeconds(5), () -> restart(n));
      return;
    }
    run.event("agent of " + n.name + " started again");
    violations.addAll(run.promises().afterRestart(n));
  }

  /**
   * The agent of a node with claims prepared is killed and its journal and mark are deleted
   * together (issue 43 item 17); it is started again a little later.
   */
  private void loseLedger() {
    var nodes =
        world.nodes().stream()
            .filter(n -> n.ledger().filter(l -> !l.claims().isEmpty()).isPresent())
            .toList();
    if (nodes.isEmpty()) {
      return;
    }
    faults++;
    var n = nodes.get(random.nextInt(nodes.size()));
    run.promises().beforeCrash(n);
    world.crashAgent(n);
    n.host.ledgerFile().loseJournal();
    run.promises().journalLost(n);
    var back = seconds(1, 20);
    run.event(
        "agent of "
            + n.name
            + " killed (-9) and its ledger.journal and ledger.journal.mark deleted; started again in "
            + back.toSeconds()
            + "s");
    later(back, () -> restart(n));
  }

  /**
   * The agent of {@code n} refused to start on a ledger that lost claims: as the README tells an
   * operator, who checks that their devices are free (here: the node's processes that used them are
   * gone, as after a reboot) and starts it with {@code --accept-lost-ledger}, a little later.
   */
  private void refusedLostLedger(WholeCluster.NodeSlot n, LostLedgerException lost) {
    run.event(
        "agent of "
            + n.name
            + " refused to start: its ledger lost "
            + lost.uids().size()
            + " claims the server says are prepared there");
    later(seconds(5, 30), () -> acceptLostLedger(n, lost.uids()));
  }

  private void acceptLostLedger(WholeCluster.NodeSlot n, List<String> lost) {
    if (n.agent.isPresent()) {
      return;
    }
    try {
      startAccepting(n, lost);
    } catch (RuntimeException e) {
      // As restart: an agent that cannot reach the server at start exits and is started again.
      run.event(
          "agent of " + n.name + " failed to start (" + e.getMessage() + "); trying again in 5s");
      later(Duration.ofSeconds(5), () -> acceptLostLedger(n, lost));
      return;
    }
    violations.addAll(run.promises().afterRestart(n));
  }

  /**
   * The operator starts {@code n}'s agent with {@code --accept-lost-ledger}, forgetting {@code
   * lost}.
   */
  private void startAccepting(WholeCluster.NodeSlot n, List<String> lost) {
    run.event("operator: start " + n.name + "'s agent with --accept-lost-ledger");
    run.promises().acceptedLost(n, lost);
    world.startAgent(n, LostLedger.ACCEPT);
  }

  /**
   * {@link #startAccepting} once the faults have stopped, and again every 5 s while the start fails
   * (a server that cannot be asked at start: the agent exits and is started again, as after a
   * fault); whether it is up now.
   */
  private boolean healAccepting(WholeCluster.NodeSlot n, List<String> lost) {
    try {
      startAccepting(n, lost);
      return true;
    } catch (RuntimeException e) {
      run.event(
          "agent of " + n.name + " failed to start (" + e.getMessage() + "); trying again in 5s");
      world
          .env()
          .schedule(
              Duration.ofSeconds(5),
              () -> {
                if (n.agent.isEmpty() && healAccepting(n, lost)) {
                  violations.addAll(run.promises().afterRestart(n));
                }
              });
      return false;
    }
  }

  /**
   * Starts {@code n}'s agent after the faults; its promises are checked once it is up. One refused
   * on a lost ledger is started as the operator would ({@link #healAccepting}); one that could not
   * ask the server (a list failed: the agent exits rather than start blind) is tried again every 5
   * s, as under systemd and as {@link #restart} does during the faults.
   */
  private void healStart(WholeCluster.NodeSlot n) {
    try {
      world.startAgent(n);
    } catch (RuntimeException e) {
      if (!(e.getCause() instanceof LostLedgerException lost)) {
        run.event(
            "agent of " + n.name + " failed to start (" + e.getMessage() + "); trying again in 5s");
        world
            .env()
            .schedule(
                Duration.ofSeconds(5),
                () -> {
                  if (n.agent.isEmpty()) {
                    healStart(n);
                  }
                });
        return;
      }
      run.event("agent of " + n.name + " refused to start: its ledger lost claims");
      if (!healAccepting(n, lost.uids())) {
        return; // checked once it is up
      }
    }
    violations.addAll(run.promises().afterRestart(n));
  }

  /**
   * No more faults: cancel what is pending, heal every partition, device and failure, restart every
   * agent.
   */
  void stopAndHeal() {
    stopped = true;
    pending.forEach(Env.Cancellable::cancel);
    world.failRate(0);
    for (var r : world.replicas()) {
      if (r.process().isPaused()) {
        r.process().resume();
        run.event("replica " + r.identity() + " resumed (SIGCONT)");
      }
    }
    for (var n : world.nodes()) {
      if (n.process.isPaused()) {
        n.process.resume();
        run.event("agent of " + n.name + " resumed (SIGCONT)");
      }
    }
    for (var n : world.nodes()) {
      if (downForGood.contains(n.name)) {
        continue; // back when mended, fenced till then
      }
      n.api.cut(false);
      var drained = drainedUntil.get(n.name);
      long left = drained == null ? 0 : drained - world.env().nanoTime();
      if (left > 0) {
        // Still in maintenance: cordoned (not fenced) until the operator's time comes.
        world.nodeSpec(n.name, sp -> sp.withUnschedulable(true).withFenced(false));
        world
            .env()
            .schedule(
                Duration.ofNanos(left),
                () -> {
                  run.event("operator: uncordon " + n.name + " (drained)");
                  world.nodeSpec(n.name, sp -> sp.withUnschedulable(false).withFenced(false));
                });
      } else {
        world.nodeSpec(n.name, sp -> sp.withUnschedulable(false).withFenced(false));
      }
      n.host.devices().nodeNames().forEach(n.host.devices()::restore);
      for (int i = 0; i < 4; i++) {
        n.host.devices().setHealthy("gpu-" + i, true);
      }
      if (n.agent.isEmpty()) {
        healStart(n);
      }
    }
    repairSolo(12);
    // New work once the faults stop, as an operator sends it: converging needs controllers that
    // can write now, not only ones that wrote before the faults.
    world.view().workloads().stream()
        .filter(w -> w.metadata().name().equals(SeedRun.WORKLOAD))
        .findFirst()
        .ifPresent(
            w -> {
              int now = w.spec().groups().getFirst().replicas();
              scale(now >= 6 ? now - 1 : now + 1);
            });
  }

  /**
   * What an operator does after the faults, for the stand-alone pair, every 5 s for a minute: puts
   * back the claim if it is gone (a re-create may have lost to a deletion still in progress), and
   * re-creates a task that a node pin keeps from its re-created claim. A scheduled task is bound to
   * its node (as a pod is): a claim deleted and created again under it, with that node full by
   * then, can only be allocated elsewhere, and the task then waits, saying so, until it is
   * replaced.
   */
  private void repairSolo(int rounds) {
    var claim = world.api().get(Kinds.RESOURCE_CLAIM, SeedRun.SOLO + "-gpu");
    if (claim.isEmpty()) {
      SeedRun.tolerant(() -> world.api().create(SeedRun.soloClaim()));
    }
    var task = world.api().get(Kinds.TASK, SeedRun.SOLO);
    boolean stuck =
        task.isPresent()
            && task.get().spec().node().isPresent()
            && !task.get().metadata().isDeleting()
            && task.get().status().phase() != TaskPhase.Running
            && claim.filter(c -> c.status().allocation().isPresent()).isEmpty();
    if (stuck) {
      run.event(
          "operator: re-create task " + SeedRun.SOLO + " (pinned to a node its claim cannot have)");
      SeedRun.tolerant(() -> world.api().delete(Kinds.TASK, SeedRun.SOLO));
    } else if (task.isEmpty()) {
      SeedRun.tolerant(() -> world.api().create(SeedRun.soloTask()));
    }
    if (rounds > 1) {
      world.env().schedule(Duration.ofSeconds(5), () -> repairSolo(rounds - 1));
    }
  }
}
