package dev.quartermaster.control.volume;

import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeConditions;
import dev.quartermaster.api.node.PluginInstance;
import dev.quartermaster.api.node.PluginRole;
import java.util.Collection;
import java.util.Comparator;
import java.util.Optional;

/**
 * Which instance of a plugin gets its controller calls: the healthy controller instance on the live
 * node with the lowest name — stable, so calls go to one instance while it is healthy and move only
 * when it is gone (Nomad #17996 meant to sort and, until #26640, did not). Live means the agent
 * heartbeats ({@code AgentReady=True}) and the node is not fenced; cordoned or device-less nodes
 * still serve storage.
 */
public final class ControllerRoute {
  private ControllerRoute() {}

  /** A chosen instance and its node. */
  public record Target(String node, PluginInstance instance) {}

  public static Optional<Target> choose(String plugin, Collection<Node> nodes) {
    return nodes.stream()
        .filter(ControllerRoute::live)
        .sorted(Comparator.comparing(n -> n.metadata().name()))
        .flatMap(
            n ->
                n.status().plugins().stream()
                    .filter(
                        p ->
                            p.name().equals(plugin)
                                && p.healthy()
                                && p.roles().contains(PluginRole.Controller))
                    .map(p -> new Target(n.metadata().name(), p)))
        .findFirst();
  }

  /** The node's healthy node-role instance of {@code plugin}. */
  public static Optional<PluginInstance> nodeInstance(Node node, String plugin) {
    return node.status().plugins().stream()
        .filter(p -> p.name().equals(plugin) && p.healthy() && p.roles().contains(PluginRole.Node))
        .findFirst();
  }

  public static boolean live(Node n) {
    return !n.spec().fenced()
        && !n.metadata().isDeleting()
        && Condition.find(n.status().conditions(), NodeConditions.AGENT_READY)
            .map(Condition::isTrue)
            .orElse(false);
  }
}
