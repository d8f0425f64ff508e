package dev.quartermaster.sim.world;

import dev.quartermaster.agent.mig.LiveInstance;
import dev.quartermaster.agent.mig.MigCapabilities;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The promises of MIG slices, judged on every MIG node's simulated driver, its agent's ledger and
 * its live processes:
 *
 * <ul>
 *   <li>MIG-LEAK: no instance exists for longer than {@link #LEAK_BOUND} of its agent's running
 *       time at a slice no claim in the ledger holds: a crash between "created" and "recorded", or
 *       an unprepare the agent did not live to finish, is cleaned up, never left to block
 *       placement.
 *   <li>MIG-SHARED: no instance serves two claims: no two live processes of different claims have
 *       one instance's capability nodes open.
 *   <li>MIG-CAPS: a live process on a slice opened its parent's {@code /dev/nvidiaN} and both
 *       capability nodes (GI's and CI's) of the instance that serves that slice now.
 * </ul>
 */
final class MigPromises {
  /** How long an unheld instance may live while its agent runs (a reconcile comes every rescan). */
  static final Duration LEAK_BOUND = Duration.ofMinutes(1);

  private final WholeCluster world;

  /** node/uuid → virtual nanos it was first seen unheld while the agent ran. */
  private final Map<String, Long> unheldSince = new HashMap<>();

  MigPromises(WholeCluster world) {
    this.world = world;
  }

  void check(List<String> out) {
    var seen = new HashSet<String>();
    for (var name : world.migNodes()) {
      var n = world.node(name);
      var table = n.host.devices().migTable();
      if (table.isEmpty()) {
        continue;
      }
      var instances = table.get().instances();
      leaks(n, instances, seen, out);
      processes(n, instances, out);
    }
    unheldSince.keySet().retainAll(seen);
  }

  private void leaks(
      WholeCluster.NodeSlot n, List<LiveInstance> instances, Set<String> seen, List<String> out) {
    var ledger = n.ledger();
    if (ledger.isEmpty()) {
      return; // no agent runs: nobody can clean up yet
    }
    var held = new TreeSet<String>();
    ledger.get().holding().forEach(e -> held.addAll(e.devices()));
    long now = world.env().nanoTime();
    for (var i : instances) {
      var device = i.deviceName("gpu-" + i.gpu());
      if (held.contains(device)) {
        continue;
      }
      var key = n.name + "/" + i.uuid();
      seen.add(key);
      long since = unheldSince.computeIfAbsent(key, k -> now);
      if (now - since > LEAK_BOUND.toNanos()) {
        out.add(
            "MIG-LEAK "
                + n.name
                + ": instance "
                + device
                + " ("
                + i.uuid()
                + ") is held by no claim in the ledger for over "
                + LEAK_BOUND.toSeconds()
                + "s");
      }
    }
  }

  private void processes(WholeCluster.NodeSlot n, List<LiveInstance> instances, List<String> out) {
    var users = new HashMap<String, Set<String>>();
    for (var proc : n.host.tasks().alive()) {
      for (var claim : proc.devices().entrySet()) {
        for (var device : claim.getValue()) {
          if (!device.contains("-mig-")) {
            continue;
          }
          var serving =
              instances.stream()
                  .filter(i -> i.deviceName("gpu-" + i.gpu()).equals(device))
                  .findFirst();
          if (serving.isEmpty()) {
            out.add(
                capsLine(n.name, proc) + " runs on slice " + device + ", which no instance serves");
            continue;
          }
          var i = serving.get();
          var needs =
              List.of(
                  "/dev/nvidia" + i.gpu(),
                  MigCapabilities.containerPath(i.giCapMinor()),
                  MigCapabilities.containerPath(i.ciCapMinor()));
          var lacking = needs.stream().filter(p -> !proc.opened().contains(p)).toList();
          if (!lacking.isEmpty()) {
            out.add(capsLine(n.name, proc) + " on slice " + device + " did not open " + lacking);
          }
        }
      }
      for (var path : proc.opened()) {
        if (path.startsWith(MigCapabilities.DIR)) {
          proc.devices().entrySet().stream()
              .filter(e -> e.getValue().stream().anyMatch(d -> d.contains("-mig-")))
              .forEach(e -> users.computeIfAbsent(path, k -> new TreeSet<>()).add(e.getKey()));
        }
      }
    }
    users.forEach(
        (path, claims) -> {
          if (claims.size() > 1) {
            out.add("MIG-SHARED " + n.name + ": " + path + " is open for claims " + claims);
          }
        });
  }

  /** The start of a MIG-CAPS line: where, and whose process. */
  private static String capsLine(String node, dev.quartermaster.sim.node.SimProcesses.Proc proc) {
    return "MIG-CAPS " + node + ": process " + proc.pid() + " of task " + proc.task();
  }
}
