package dev.quartermaster.cli.describe;

import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeConditions;
import dev.quartermaster.api.node.PluginRole;
import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.cli.format.Times;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What a volume claim waits for, and, when its release is stuck, what would unstick it: computed
 * from the claim, its task, its node and the plugin instances the nodes report. Pure, so each case
 * is tested on its own. Empty when nothing waits (a live task holds an attached claim).
 *
 * <p>The release steps are the claim protocol's ({@link VolumeClaim}): the node's agent unpublishes
 * (or the node is fenced), then the volume controller calls ControllerUnpublish through one healthy
 * controller instance of the plugin, then frees the claim.
 */
final class ClaimRelease {
  private ClaimRelease() {}

  /**
   * @param task the claim's task as it is now, if it exists
   * @param node the claim's node, if it exists
   * @param nodes every node, for the plugin's controller instances
   */
  static String waitingFor(
      VolumeClaim c,
      String plugin,
      Optional<Task> task,
      Optional<Node> node,
      List<Node> nodes,
      Instant now) {
    return switch (c.state()) {
      case Taken -> {
        if (holds(c, task)) {
          yield c.attached()
              ? ""
              : "ControllerPublish to " + c.node() + " through " + controller(plugin, nodes);
        }
        var unpublish = unpublish(c.node(), node, now);
        yield c.releaseError().isEmpty()
            ? unpublish
            : unpublish + "; its release there keeps failing: " + c.releaseError();
      }
      case NodeDetached ->
          c.attached()
              ? "ControllerUnpublish through " + controller(plugin, nodes)
              : "the volume controller to mark it ControllerDetached (never attached: no ControllerUnpublish needed)";
      case ControllerDetached -> "the volume controller to free it";
      case Free -> "";
    };
  }

  /** Why DeleteVolume has not happened yet on a deleting volume whose claims are all free. */
  static String deleteVolume(String plugin, List<Node> nodes) {
    return "DeleteVolume through " + controller(plugin, nodes);
  }

  /** The claim's own task incarnation is still there and not done with it. */
  private static boolean holds(VolumeClaim c, Optional<Task> task) {
    return task.filter(t -> c.taskUid().isEmpty() || c.taskUid().equals(t.metadata().uid()))
        .filter(t -> !t.metadata().isDeleting() && !t.status().phase().isFinished())
        .isPresent();
  }

  private static String unpublish(String name, Optional<Node> node, Instant now) {
    var waiting = name + " to unpublish";
    if (node.isEmpty()) {
      return waiting
          + "; node "
          + name
          + " does not exist (no agent will answer; the volume controller must release it)";
    }
    var n = node.get();
    if (n.spec().fenced()) {
      return "the volume controller to mark it NodeDetached (" + name + " is fenced)";
    }
    var ready = Condition.find(n.status().conditions(), NodeConditions.AGENT_READY);
    if (ready.isPresent() && ready.get().isTrue()) {
      return waiting + " (its agent runs NodeUnpublish and NodeUnstage)";
    }
    var since =
        ready.flatMap(Condition::lastTransition).map(t -> " since " + Times.at(t, now)).orElse("");
    var why =
        ready
            .map(r -> r.reason().isEmpty() ? "" : " (" + r.reason() + ")")
            .orElse(" (AgentReady never reported)");
    return waiting
        + "; "
        + name
        + " NotReady"
        + since
        + why
        + "; if "
        + name
        + " is down, `qm node fence "
        + name
        + "` releases it";
  }

  /**
   * The plugin's controller instance the volume controller calls: the healthy one on the
   * lowest-named node; or why there is none.
   */
  static String controller(String plugin, List<Node> nodes) {
    record Instance(String node, boolean healthy, String message) {}
    var instances =
        nodes.stream()
            .flatMap(
                n ->
                    n.status().plugins().stream()
                        .filter(
                            p ->
                                p.name().equals(plugin)
                                    && p.roles().contains(PluginRole.Controller))
                        .map(p -> new Instance(n.metadata().name(), p.healthy(), p.message())))
            .sorted(Comparator.comparing(Instance::node))
            .toList();
    var healthy = instances.stream().filter(Instance::healthy).findFirst();
    if (healthy.isPresent()) {
      return "plugin " + plugin + " (instance on " + healthy.get().node() + ")";
    }
    if (instances.isEmpty()) {
      return "plugin "
          + plugin
          + ": no node reports a controller instance of it (see `qm get plugins`)";
    }
    return "plugin "
        + plugin
        + ": no healthy controller instance ("
        + instances.stream()
            .map(i -> i.node() + ": " + (i.message().isEmpty() ? "unhealthy" : i.message()))
            .collect(Collectors.joining("; "))
        + ")";
  }
}
