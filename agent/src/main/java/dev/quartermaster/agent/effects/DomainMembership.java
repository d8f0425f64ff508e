package dev.quartermaster.agent.effects;

import java.util.Set;

/**
 * Where the node's compute-domain membership is published: the agent's implementation writes {@code
 * Node.status.computeDomains}; tests keep it in memory.
 */
public interface DomainMembership {

  /** Publishes {@code domains} as the node's complete membership; throws if it could not. */
  void publish(Set<String> domains) throws Exception;
}
