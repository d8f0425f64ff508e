package dev.quartermaster.sim.world;

import dev.quartermaster.api.claim.PrepareState;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.node.DomainDaemon;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Seed 1's promises, judged over every change of Nodes, ResourceClaims and Tasks in revision order
 * (the store's commits in the simulation; watches merged by revision against a real {@code qm up}).
 * A task <em>in use</em> is one that is Running and not being deleted: its process runs with its
 * claims. For each claim naming compute domain D that such a task uses on node N:
 *
 * <ol>
 *   <li>N is a member of D (it never leaves D under a running worker);
 *   <li>N reports D's daemon Ready, and with the same pid as long as the task runs (the daemon is
 *       never stopped or restarted under it);
 *   <li>the claim is Prepared on N (a worker never runs without its claim);
 * </ol>
 *
 * and at every revision no device of a node is allocated to two claims that still exist.
 */
public final class DomainPromises {
  private final Map<String, Node> nodes = new HashMap<>();
  private final Map<String, ResourceClaim> claims = new HashMap<>();
  private final Map<String, Task> tasks = new HashMap<>();

  /** The daemon pid each in-use task started under, by task uid and domain. */
  private final Map<String, Long> pidAtStart = new HashMap<>();

  private final List<String> violations = new ArrayList<>();
  private long checkedRevisions;

  /**
   * {@code o} as it is after the change at {@code revision}; {@code deleted} when the change
   * removed it.
   */
  public synchronized void changed(long revision, ApiObject o, boolean deleted) {
    var name = o.metadata().name();
    switch (o) {
      case Node n -> put(nodes, name, n, deleted);
      case ResourceClaim c -> put(claims, name, c, deleted);
      case Task t -> put(tasks, name, t, deleted);
      default -> {
        return;
      }
    }
    checkedRevisions++;
    check(revision);
  }

  private static <T> void put(Map<String, T> into, String name, T o, boolean deleted) {
    if (deleted) {
      into.remove(name);
    } else {
      into.put(name, o);
    }
  }

  private void check(long revision) {
    for (var t : tasks.values()) {
      if (t.status().phase() != TaskPhase.Running
          || t.metadata().isDeleting()
          || t.spec().node().isEmpty()) {
        pidAtStart.keySet().removeIf(k -> k.startsWith(t.metadata().uid() + "/"));
        continue;
      }
      var node = t.spec().node().get();
      for (var claimName : t.spec().claims()) {
        var claim = Optional.ofNullable(claims.get(claimName));
        var domain = claim.flatMap(c -> c.spec().computeDomain());
        if (domain.isEmpty()) {
          continue;
        }
        var d = domain.get();
        var at =
            "rev "
                + revision
                + ": running task "
                + t.metadata().name()
                + " on "
                + node
                + " (claim "
                + claimName
                + ", domain "
                + d
                + ")";
        var prepared =
            Optional.ofNullable(claim.get().status().prepare().get(node))
                .filter(s -> s.phase() == PrepareState.Phase.Prepared);
        if (prepared.isEmpty()) {
          violations.add(at + ": its claim is not Prepared there");
        }
        var n = Optional.ofNullable(nodes.get(node));
        if (n.isEmpty() || !n.get().status().computeDomains().contains(d)) {
          violations.add(at + ": the node is not a member of the domain");
        }
        var daemon =
            n.flatMap(
                x ->
                    x.status().domainDaemons().stream()
                        .filter(dd -> dd.domain().equals(d))
                        .findFirst());
        if (daemon.isEmpty() || !daemon.get().ready()) {
          violations.add(
              at
                  + ": the domain's daemon there is "
                  + daemon.map(dd -> dd.state().name()).orElse("not reported"));
          continue;
        }
        long pid = daemon.get().pid().orElse(-1L);
        var key = t.metadata().uid() + "/" + d;
        var first = pidAtStart.putIfAbsent(key, pid);
        if (first != null && first != pid) {
          violations.add(
              at + ": the daemon was stopped under it (pid " + first + " became " + pid + ")");
          pidAtStart.put(key, pid);
        }
      }
    }
    // I1 by the one judge; this history carries no slices, so every device is whole.
    ExclusiveUse.violations(claims.values(), ExclusiveUse.bySlices(List.of()))
        .forEach(v -> violations.add("rev " + revision + ": " + v));
  }

  public synchronized List<String> violations() {
    return List.copyOf(violations);
  }

  /** How many changes were judged. */
  public synchronized long checked() {
    return checkedRevisions;
  }

  /** The daemon of {@code domain} on {@code node} as last reported, if any. */
  public synchronized Optional<DomainDaemon> daemon(String node, String domain) {
    return Optional.ofNullable(nodes.get(node))
        .flatMap(
            n ->
                n.status().domainDaemons().stream()
                    .filter(d -> d.domain().equals(domain))
                    .findFirst());
  }
}
