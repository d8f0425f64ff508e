package dev.quartermaster.agent.mig;

import dev.quartermaster.agent.discovery.VerifiedNode;
import java.util.List;
import java.util.Objects;

/**
 * A slice as a claim's containers get it: the instance serving it and the capability nodes (GI's,
 * then CI's access file) a process on it must open, besides its parent's {@code /dev/nvidia<N>}.
 */
public record PreparedSlice(
    MigSlice slice, LiveInstance instance, List<VerifiedNode> capabilityNodes) {
  public PreparedSlice {
    Objects.requireNonNull(slice, "slice");
    Objects.requireNonNull(instance, "instance");
    capabilityNodes = List.copyOf(capabilityNodes);
  }

  public String name() {
    return slice.name();
  }
}
