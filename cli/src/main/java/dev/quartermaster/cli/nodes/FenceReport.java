package dev.quartermaster.cli.nodes;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.NodeAudience;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeConditions;
import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.control.lifecycle.NodeLifecycle;
import java.util.List;
import java.util.Optional;

/**
 * What fencing a node hands over, and whether its agent looks alive. Fencing is the operator's word
 * that the node is down (as Kubernetes' {@code node.kubernetes.io/out-of-service} taint is): its
 * unfinished tasks are failed and replaced elsewhere, its device claims freed, and its volume
 * claims released without its agent, so a single-writer volume gets a new writer. Said to a node
 * whose agent still heartbeats, that would run two writers at once; so {@code qm node fence}
 * refuses an alive node unless {@code --force}, as Nomad's {@code -force} overrides its own checks.
 *
 * @param alive why the agent looks alive (its AgentReady condition is True: a heartbeat was seen
 *     within the grace period), or empty
 */
public record FenceReport(
    Optional<String> alive, List<String> tasks, List<String> claims, List<String> volumeClaims) {

  public static FenceReport of(ApiClient api, Node node) {
    var name = node.metadata().name();
    var ready = Condition.find(node.status().conditions(), NodeConditions.AGENT_READY);
    var alive =
        ready
            .filter(Condition::isTrue)
            .map(
                c ->
                    "AgentReady True ("
                        + c.reason()
                        + (c.message().isEmpty() ? "" : ": " + c.message())
                        + "), last heartbeat "
                        + node.status().heartbeat().map(Object::toString).orElse("never"));
    // A task the node lifecycle already failed (NodeLost) whose replacement waits for its claims
    // is handed over too.
    var tasks =
        api.list(Kinds.TASK).items().stream()
            .filter(t -> t.spec().node().equals(Optional.of(name)))
            .filter(t -> !t.status().phase().isFinished() || t.metadata().isDeleting())
            .map(
                t ->
                    "task/"
                        + t.metadata().name()
                        + " ("
                        + t.status().phase()
                        + (t.status().phase().isFinished()
                            ? " " + t.status().reason() + ", its replacement waiting"
                            : "")
                        + ")")
            .sorted()
            .toList();
    var claims =
        api.list(Kinds.RESOURCE_CLAIM).items().stream()
            .filter(c -> NodeAudience.of(c).includes(name))
            .map(c -> "resourceclaim/" + c.metadata().name())
            .sorted()
            .toList();
    var volumeClaims =
        api.list(Kinds.VOLUME).items().stream()
            .flatMap(
                v ->
                    v.status().claims().stream()
                        .filter(c -> c.node().equals(name) && c.state() != VolumeClaim.State.Free)
                        .map(
                            c ->
                                "volume/"
                                    + v.metadata().name()
                                    + " ("
                                    + c.mode()
                                    + " by task "
                                    + c.task()
                                    + ")"))
            .sorted()
            .toList();
    return new FenceReport(alive, tasks, claims, volumeClaims);
  }

  /** The refusal for an alive node, naming what it would have handed over. */
  public String refusal(String name) {
    return "node "
        + name
        + "'s agent is alive: "
        + alive.orElse("")
        + ". Fencing says the node is down: "
        + handedOver()
        + " would be handed to others while it may still run them. Stop the node (or wait until "
        + "`qm get nodes` shows it READY False, "
        + NodeLifecycle.DEFAULT_GRACE.toSeconds()
        + " s after its last heartbeat), then fence it; or pass --force if you know it is down";
  }

  /** The lines {@code fence} prints after it fenced. */
  public List<String> handedOverLines() {
    var lines = new java.util.ArrayList<String>();
    lines.add(
        "  trusted no more: the node's agent, until `qm node unfence`; its tasks are failed (NodeFenced) and replaced elsewhere");
    section(lines, "tasks failed and replaced", tasks);
    section(lines, "device claims freed", claims);
    section(lines, "volume claims released without the node", volumeClaims);
    return lines;
  }

  private String handedOver() {
    return tasks.size()
        + " task(s), "
        + claims.size()
        + " device claim(s) and "
        + volumeClaims.size()
        + " volume claim(s)";
  }

  private static void section(List<String> lines, String title, List<String> items) {
    lines.add(
        "  "
            + title
            + ": "
            + (items.isEmpty()
                ? "none"
                : items.size() <= 10
                    ? String.join(", ", items)
                    : String.join(", ", items.subList(0, 10))
                        + " and "
                        + (items.size() - 10)
                        + " more"));
  }
}
