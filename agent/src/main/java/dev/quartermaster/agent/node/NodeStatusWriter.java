package dev.quartermaster.agent.node;

import dev.quartermaster.agent.effects.DomainMembership;
import dev.quartermaster.api.node.DomainDaemon;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;

/**
 * The one writer of this node's {@code Node.status}: heartbeat, conditions, boot id and the
 * compute-domain membership all go through {@link #update}, a read-modify-write with
 * compare-and-set that retries on conflict, so no writer overwrites another's field. Creates the
 * Node if it does not exist (registration) and adopts it if it does.
 */
public final class NodeStatusWriter implements DomainMembership {
  private static final int ATTEMPTS = 16;

  private final ApiClient api;
  private final String node;
  private final dev.quartermaster.core.env.Env env;

  public NodeStatusWriter(ApiClient api, String node, dev.quartermaster.core.env.Env env) {
    this.api = Objects.requireNonNull(api, "api");
    this.node = Objects.requireNonNull(node, "node");
    this.env = Objects.requireNonNull(env, "env");
  }

  /** Applies {@code change} to the Node's status; returns the Node as written (or as it was, if unchanged). */
  public synchronized Node update(UnaryOperator<NodeStatus> change) {
    ApiException last = null;
    for (int i = 0; i < ATTEMPTS; i++) {
      try {
        var current = api.get(Kinds.NODE, node);
        if (current.isEmpty()) {
          var status = change.apply(NodeStatus.EMPTY);
          return api.create(new Node(ObjectMeta.named(node), NodeSpec.EMPTY, status));
        }
        var next = change.apply(current.get().status());
        if (next.equals(current.get().status())) {
          return current.get();
        }
        return api.updateStatus(current.get().withStatus(next));
      } catch (ApiException e) {
        if (!e.is(Reason.Conflict) && !e.is(Reason.AlreadyExists) && !e.is(Reason.NotFound)) {
          throw e;
        }
        last = e; // someone else wrote in between: read again
      }
    }
    throw last;
  }

  /**
   * Publishes the membership and, for each member domain, its daemon as ready: the effects reconciler
   * publishes a domain only once its helper runs (I2's order), so a published domain has a running
   * daemon. A daemon already reported keeps its entry (and its {@code since}).
   */
  @Override
  public void publish(Set<String> domains) {
    var sorted = List.copyOf(new TreeSet<>(domains));
    var now = env.now();
    update(s -> {
      var daemons = sorted.stream().map(d -> s.daemonOf(d).filter(DomainDaemon::ready)
          .orElse(new DomainDaemon(d, DomainDaemon.DaemonState.Ready, java.util.Optional.empty(), 0, "",
              java.util.Optional.of(now)))).toList();
      return new NodeStatus(s.conditions(), s.heartbeat(), s.bootId(), s.agentVersion(), sorted, s.plugins(), daemons);
    });
  }
}
