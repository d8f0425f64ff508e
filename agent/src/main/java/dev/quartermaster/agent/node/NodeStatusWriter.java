package dev.quartermaster.agent.node;

import dev.quartermaster.agent.effects.DomainMembership;
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
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;

/**
 * The one writer of this node's {@code Node.status}: heartbeat, conditions, boot id and the
 * compute-domain membership all go through {@link #update}, a read-modify-write with
 * compare-and-set that retries on conflict, so no writer overwrites another's field. Creates the
 * Node if it does not exist (registration) and adopts it if it does.
 *
 * <p>A change is first tried against the Node as this writer last wrote or read it, without a read:
 * at a heartbeat every 10 s, nobody else has written the Node in between nearly always, and the
 * read was one of a beat's three requests (1,000 a second at 10,000 nodes). If anyone did, the
 * compare-and-set fails and the writer reads and tries again. Only a fresh read may say that
 * nothing needs writing.
 */
public final class NodeStatusWriter implements DomainMembership {
  private static final int ATTEMPTS = 16;

  private final ApiClient api;
  private final String node;

  /** The Node as last written or read here; empty until one was. */
  private volatile Optional<Node> last = Optional.empty();

  /** Whether {@link #last} may be written against without a read: no write found it out of date. */
  private boolean lastHolds; // guarded by this

  /**
   * The operator's spec of the node as the last status write saw it (each heartbeat does): how the
   * agent learns its GPUs' sharing and MIG wishes without a read of its own.
   */
  public Optional<NodeSpec> lastSpec() {
    return last.map(Node::spec);
  }

  public NodeStatusWriter(ApiClient api, String node) {
    this.api = Objects.requireNonNull(api, "api");
    this.node = Objects.requireNonNull(node, "node");
  }

  /**
   * Applies {@code change} to the Node's status; returns the Node as written (or as it was, if
   * unchanged).
   */
  public synchronized Node update(UnaryOperator<NodeStatus> change) {
    ApiException lost = null;
    for (int i = 0; i < ATTEMPTS; i++) {
      try {
        boolean remembered = i == 0 && lastHolds;
        var current = remembered ? last : read();
        if (current.isEmpty()) {
          var status = change.apply(NodeStatus.EMPTY);
          return wrote(api.create(new Node(ObjectMeta.named(node), NodeSpec.EMPTY, status)));
        }
        var next = change.apply(current.get().status());
        if (next.equals(current.get().status())) {
          if (remembered) {
            continue; // "nothing to write" is a fresh read's to say
          }
          return current.get();
        }
        return wrote(api.updateStatus(current.get().withStatus(next)));
      } catch (ApiException e) {
        if (!e.is(Reason.Conflict) && !e.is(Reason.AlreadyExists) && !e.is(Reason.NotFound)) {
          throw e;
        }
        lastHolds = false;
        lost = e; // someone else wrote in between: read again
      }
    }
    throw lost;
  }

  private Optional<Node> read() {
    var current = api.get(Kinds.NODE, node);
    current.ifPresent(n -> last = current);
    lastHolds = current.isPresent();
    return current;
  }

  /** The Node as the store took it, spec and all (a status write returns it whole). */
  private Node wrote(Node written) {
    last = Optional.of(written);
    lastHolds = true;
    return written;
  }

  /**
   * Publishes the membership. The daemons' states are the agent's daemon watch's to report; an
   * entry for a domain no longer published is dropped with it.
   */
  @Override
  public void publish(Set<String> domains) {
    var sorted = List.copyOf(new TreeSet<>(domains));
    update(
        s ->
            new NodeStatus(
                s.conditions(),
                s.heartbeat(),
                s.bootId(),
                s.agentVersion(),
                sorted,
                s.plugins(),
                s.domainDaemons().stream().filter(d -> domains.contains(d.domain())).toList(),
                s.logs()));
  }
}
