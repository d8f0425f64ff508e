package dev.quartermaster.cli.drain;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.workload.Task;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What still keeps a node from being empty, read off one view of the cluster: the tasks on it, the
 * claims allocated or prepared there that a task uses (or used), and the volume claims held there.
 * Pure, so the drain's decisions are tested without a cluster.
 *
 * @param tasks tasks on the node that a drain stops: every unfinished one, and finished ones a
 *     workload replaces
 * @param standalone of those, tasks no workload owns: nobody would replace them
 * @param claims claims still allocated to or prepared on the node and used by a task
 * @param idleClaims claims allocated there that no task names: a drain leaves them, and says so
 * @param volumeClaims {@code volume/task} holds on volumes still taken or releasing on the node
 */
public record DrainState(
    List<Task> tasks,
    List<String> standalone,
    List<String> claims,
    List<String> idleClaims,
    List<String> volumeClaims) {

  public static DrainState of(
      String node, List<Task> allTasks, List<ResourceClaim> allClaims, List<Volume> volumes) {
    var onNode = allTasks.stream().filter(t -> on(t, node)).toList();
    // A finished task of a workload still holds its claims until it is replaced: stopped too. A
    // finished stand-alone task is someone's record (exit code, logs): left, with what it holds.
    var tasks =
        onNode.stream()
            .filter(t -> !t.status().phase().isFinished() || ownedByWorkload(t))
            .toList();
    var standalone =
        tasks.stream().filter(t -> !ownedByWorkload(t)).map(t -> t.metadata().name()).toList();
    Set<String> stopped = new TreeSet<>();
    Set<String> named = new TreeSet<>();
    tasks.forEach(
        t -> {
          stopped.add(t.metadata().name());
          named.addAll(t.spec().claims());
        });
    Set<String> left = new TreeSet<>();
    onNode.stream()
        .filter(t -> !stopped.contains(t.metadata().name()))
        .forEach(t -> left.add(t.metadata().name()));
    var claims = new ArrayList<String>();
    var idle = new ArrayList<String>();
    for (var c : allClaims) {
      boolean here =
          c.status().allocation().map(a -> a.node().equals(node)).orElse(false)
              || c.status().prepare().containsKey(node);
      if (!here) {
        continue;
      }
      if (named.contains(c.metadata().name()) || c.metadata().isDeleting()) {
        claims.add(c.metadata().name());
      } else {
        idle.add(c.metadata().name());
      }
    }
    var volumeClaims =
        volumes.stream()
            .flatMap(
                v ->
                    v.status().claims().stream()
                        .filter(h -> h.node().equals(node) && !left.contains(h.task()))
                        .map(h -> v.metadata().name() + "/" + h.task()))
            .sorted()
            .toList();
    return new DrainState(tasks, standalone, List.copyOf(claims), List.copyOf(idle), volumeClaims);
  }

  private static boolean ownedByWorkload(Task t) {
    return t.metadata().owner().filter(o -> o.kind().equals(Kinds.WORKLOAD.name())).isPresent();
  }

  private static boolean on(Task t, String node) {
    return t.spec().node().or(() -> t.status().node()).map(node::equals).orElse(false);
  }

  /** Nothing left on the node that a drain waits for. */
  public boolean empty() {
    return tasks.isEmpty() && claims.isEmpty() && volumeClaims.isEmpty();
  }

  /** One progress line: {@code 3 tasks stopping, 2 claims held, 0 volume claims}. */
  public String progress() {
    return tasks.size()
        + " task(s) stopping, "
        + claims.size()
        + " claim(s) held, "
        + volumeClaims.size()
        + " volume claim(s) held";
  }
}
