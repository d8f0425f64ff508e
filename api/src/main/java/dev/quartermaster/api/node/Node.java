package dev.quartermaster.api.node;

import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;

/**
 * A machine that runs an agent. Its status says whether it is alive and whether its devices are
 * complete.
 */
public record Node(ObjectMeta metadata, NodeSpec spec, NodeStatus status) implements ApiObject {
  /** Set on a node while {@code qm node drain} works on it; its table shows {@code draining}. */
  public static final String DRAINING_LABEL = "quartermaster.dev/draining";

  public Node {
    metadata = metadata == null ? ObjectMeta.named("") : metadata;
    spec = spec == null ? NodeSpec.EMPTY : spec;
    status = status == null ? NodeStatus.EMPTY : status;
  }

  @Override
  public Node withMetadata(ObjectMeta m) {
    return new Node(m, spec, status);
  }

  @Override
  public Node withStatusOf(ApiObject other) {
    return new Node(metadata, spec, ((Node) other).status);
  }

  public Node withStatus(NodeStatus s) {
    return new Node(metadata, spec, s);
  }

  /**
   * Whether this node, as {@code before} was, differs from it in its heartbeat alone: what an
   * agent's beat writes every 10 s, which only node lifecycle reads. Anything else (spec, labels,
   * finalizers, deletion, another status field) is a change that others act on.
   */
  public boolean movesOnlyHeartbeat(Node before) {
    return before.spec().equals(spec)
        && before.metadata().labels().equals(metadata.labels())
        && before.metadata().isDeleting() == metadata.isDeleting()
        && before.metadata().finalizers().equals(metadata.finalizers())
        && before.status().withHeartbeat(status.heartbeat()).equals(status);
  }

  @Override
  public Kind<Node> kind() {
    return Kinds.NODE;
  }
}
