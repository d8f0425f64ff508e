package dev.quartermaster.agent.health;

import java.util.Optional;

/**
 * Which published slice GPU instance {@code giId} of GPU {@code gpu} serves now, so that an XID
 * naming an instance marks only that slice.
 */
@FunctionalInterface
public interface InstanceSlices {

  Optional<String> slice(String gpu, int giId);

  /** A node without MIG: no instance serves any slice. */
  InstanceSlices NONE = (gpu, giId) -> Optional.empty();
}
