package dev.quartermaster.api.claim;

import java.util.Optional;

/**
 * The finalizer that makes a claim a node's to let go: the allocator puts it on with the claim's
 * allocation to the node (the node's agent, before it prepares a claim that lacks it), and the
 * node's agent takes it off once the claim is unprepared there: a deleted claim stays until that
 * node has let its devices go.
 */
public record AgentFinalizer(String node) {
  private static final String PREFIX = "quartermaster.dev/agent-";

  /** The finalizer as it is written in {@code metadata.finalizers}. */
  public String name() {
    return PREFIX + node;
  }

  /** {@code c} carrying this finalizer: {@code c} itself if it does already. */
  public ResourceClaim on(ResourceClaim c) {
    if (c.metadata().finalizers().contains(name())) {
      return c;
    }
    var finalizers = new java.util.ArrayList<>(c.metadata().finalizers());
    finalizers.add(name());
    return c.withMetadata(c.metadata().withFinalizers(finalizers));
  }

  /** The agent finalizer {@code finalizer} is, if it is one. */
  public static Optional<AgentFinalizer> parse(String finalizer) {
    return finalizer.startsWith(PREFIX) && finalizer.length() > PREFIX.length()
        ? Optional.of(new AgentFinalizer(finalizer.substring(PREFIX.length())))
        : Optional.empty();
  }
}
