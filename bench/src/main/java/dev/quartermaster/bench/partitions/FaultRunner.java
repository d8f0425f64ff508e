package dev.quartermaster.bench.partitions;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Applies a schedule's faults on time, heals each when its length is over, and heals everything at
 * the end: every cut removed, every paused process continued, every killed one started again. Each
 * fault runs on a thread of its own, so faults overlap as the schedule drew them.
 */
final class FaultRunner {
  private final LabCluster cluster;
  private final Consumer<String> history;
  private final Runnable busy;

  FaultRunner(LabCluster cluster, Consumer<String> history) {
    this(cluster, history, () -> {});
  }

  /**
   * @param busy gives the controllers work (the generator's creates) just before the leader is cut
   *     off, so it has writes in flight when it is
   */
  FaultRunner(LabCluster cluster, Consumer<String> history, Runnable busy) {
    this.cluster = cluster;
    this.history = history;
    this.busy = busy;
  }

  /** Runs {@code schedule} from now; returns when every fault has been applied and healed. */
  void run(Schedule schedule) throws InterruptedException {
    long start = System.nanoTime();
    var threads = new ArrayList<Thread>();
    for (var timed : schedule.faults()) {
      threads.add(
          Thread.ofPlatform()
              .name("fault-" + timed.fault().describe())
              .start(
                  () -> {
                    try {
                      sleepUntil(start, timed.at());
                      history.accept("fault " + timed.fault().describe());
                      apply(timed.fault());
                      history.accept("healed " + timed.fault().describe());
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    } catch (Exception e) {
                      history.accept("fault failed: " + timed.fault().describe() + ": " + e);
                    }
                  }));
    }
    for (var t : threads) {
      t.join();
    }
  }

  /** The whole fault: applied, held, healed. */
  private void apply(Fault fault) throws Exception {
    var lab = cluster.lab();
    switch (fault) {
      case Fault.IsolateAgent f -> {
        for (var s : LabCluster.servers()) {
          lab.cut(f.agent(), s);
        }
        Thread.sleep(f.length());
        for (var s : LabCluster.servers()) {
          lab.uncut(f.agent(), s);
        }
      }
      case Fault.FenceIsolated f -> {
        for (var s : LabCluster.servers()) {
          lab.cut(f.agent(), s);
        }
        long start = System.nanoTime();
        var steps = new java.util.TreeMap<Duration, Runnable>();
        steps.put(f.fenceAt(), () -> operator("fence", f.agent()));
        // The operator takes the fence back and, as unfence tells them, the cordon too: the node
        // gets new work, while cut off (its old processes may still run) or after the heal.
        steps.put(
            f.unfenceAt(),
            () -> {
              operator("unfence", f.agent());
              operator("uncordon", f.agent());
            });
        steps.put(
            f.length(),
            () -> {
              try {
                for (var s : LabCluster.servers()) {
                  lab.uncut(f.agent(), s);
                }
                history.accept("healed the cut of " + f.agent());
              } catch (IOException e) {
                history.accept("heal failed: " + e.getMessage());
              }
            });
        for (var step : steps.entrySet()) {
          sleepUntil(start, step.getKey());
          step.getValue().run();
        }
      }
      case Fault.AgentOneWay f -> {
        for (var s : LabCluster.servers()) {
          lab.cutOneWay(f.agent(), s);
        }
        Thread.sleep(f.length());
        for (var s : LabCluster.servers()) {
          lab.uncutOneWay(f.agent(), s);
        }
      }
      case Fault.FlapAgent f -> {
        long end = System.nanoTime() + f.length().toNanos();
        while (System.nanoTime() < end) {
          for (var s : LabCluster.servers()) {
            lab.cut(f.agent(), s);
          }
          Thread.sleep(f.period());
          for (var s : LabCluster.servers()) {
            lab.uncut(f.agent(), s);
          }
          Thread.sleep(f.period());
        }
      }
      case Fault.EtcdMinority f -> {
        var others = others(f.member());
        for (var o : others) {
          lab.cut(f.member(), o);
        }
        Thread.sleep(f.length());
        for (var o : others) {
          lab.uncut(f.member(), o);
        }
      }
      case Fault.ServerWithMinority f -> {
        var others = others(f.member());
        for (var o : others) {
          lab.cut(f.member(), o);
          lab.cut(f.server(), o);
        }
        Thread.sleep(f.length());
        for (var o : others) {
          lab.uncut(f.member(), o);
          lab.uncut(f.server(), o);
        }
      }
      case Fault.Pause f -> {
        cluster.member(f.member()).pause();
        Thread.sleep(f.length());
        cluster.member(f.member()).resume();
      }
      case Fault.PauseLeader f -> {
        var leader = busyLeader(100);
        if (leader.isPresent()) {
          cluster.member(leader.get()).pause();
          Thread.sleep(f.length());
          cluster.member(leader.get()).resume();
        }
      }
      case Fault.IsolateLeader f -> {
        var leader = busyLeader(150);
        if (leader.isEmpty()) {
          return;
        }
        var peers = new ArrayList<>(LabCluster.etcdMembers());
        LabCluster.servers().stream().filter(s -> !s.equals(leader.get())).forEach(peers::add);
        for (var p : peers) {
          if (f.oneWay()) {
            lab.cutOneWay(leader.get(), p);
          } else {
            lab.cut(leader.get(), p);
          }
        }
        Thread.sleep(f.length());
        for (var p : peers) {
          if (f.oneWay()) {
            lab.uncutOneWay(leader.get(), p);
          } else {
            lab.uncut(leader.get(), p);
          }
        }
      }
      case Fault.SlowLeader f -> {
        var leader = busyLeader(0);
        if (leader.isPresent()) {
          lab.slow(leader.get());
          Thread.sleep(f.length());
          lab.unslow(leader.get());
        }
      }
      case Fault.Kill f -> {
        cluster.member(f.member()).kill9();
        Thread.sleep(f.length());
        cluster.member(f.member()).start();
      }
    }
  }

  /**
   * The server that leads the controllers now, told to the history, after the generator's creates
   * and {@code settleMillis} for its controllers to be writing what they need; empty (and said so)
   * when none leads.
   */
  private java.util.Optional<String> busyLeader(long settleMillis) throws InterruptedException {
    var leader = cluster.leader();
    if (leader.isEmpty()) {
      history.accept("no server leads now: the fault is not applied");
      return leader;
    }
    history.accept("the leader is " + leader.get());
    busy.run();
    Thread.sleep(settleMillis);
    return leader;
  }

  /**
   * What the operator types: {@code qm node fence|unfence NODE}; its answer goes to the history.
   */
  private void operator(String verb, String node) {
    try {
      var said = cluster.qmCommand(List.of("node", verb, node)).strip();
      history.accept("operator: qm node " + verb + " " + node + ": " + said.replace('\n', ' '));
    } catch (IOException e) {
      history.accept(
          "operator: qm node "
              + verb
              + " "
              + node
              + " refused: "
              + e.getMessage().replace('\n', ' '));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** After a schedule: nothing cut, nothing paused, everything running. */
  void healEverything(List<String> members) throws IOException {
    cluster.lab().healAll();
    for (var agent : LabCluster.agents()) {
      try {
        var node = cluster.client().get(dev.quartermaster.api.meta.Kinds.NODE, agent);
        if (node.isPresent() && node.get().spec().fenced()) {
          operator("unfence", agent);
        }
        if (node.isPresent() && node.get().spec().unschedulable()) {
          operator("uncordon", agent);
        }
      } catch (RuntimeException e) {
        history.accept("could not read node " + agent + ": " + e.getMessage());
      }
    }
    for (var m : members) {
      var p = cluster.member(m);
      p.resume();
      if (!p.alive()) {
        history.accept("started again: " + m);
        p.start();
      }
    }
  }

  private static List<String> others(String member) {
    return LabCluster.etcdMembers().stream().filter(m -> !m.equals(member)).toList();
  }

  private static void sleepUntil(long start, Duration at) throws InterruptedException {
    long wait = start + at.toNanos() - System.nanoTime();
    if (wait > 0) {
      Thread.sleep(Duration.ofNanos(wait));
    }
  }
}
