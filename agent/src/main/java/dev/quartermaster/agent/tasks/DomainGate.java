package dev.quartermaster.agent.tasks;

import java.util.Optional;

/**
 * What a task of a compute domain waits for (I2 for domains): to start, the domain Ready — every
 * one of its {@code numNodes} members with a ready daemon, so no rank starts before its peers can
 * be reached — and, while it runs, the domain's daemon on this node. The agent answers from the
 * domain's status and from its own daemon checks.
 */
public interface DomainGate {
  /** For nodes and tests without compute domains: nothing to wait for. */
  DomainGate NONE =
      new DomainGate() {
        @Override
        public Optional<String> notReadyToStart(String domain) {
          return Optional.empty();
        }

        @Override
        public Optional<String> daemonDown(String domain) {
          return Optional.empty();
        }
      };

  /** Why a task of {@code domain} may not start here yet; empty when it may. */
  Optional<String> notReadyToStart(String domain);

  /** Why {@code domain}'s daemon on this node is not ready now; empty when it is. */
  Optional<String> daemonDown(String domain);
}
