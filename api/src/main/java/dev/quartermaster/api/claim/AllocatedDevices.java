package dev.quartermaster.api.claim;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/** Which claim each node's devices are allocated to, as the claims' allocations say it. */
public final class AllocatedDevices {
  private AllocatedDevices() {}

  /**
   * Node → device → the name of the claim allocated it; should two claims name one device (I1
   * broken), the later in {@code claims} wins.
   */
  public static Map<String, Map<String, String>> byNode(Collection<ResourceClaim> claims) {
    var out = new HashMap<String, Map<String, String>>();
    for (var c : claims) {
      c.status()
          .allocation()
          .ifPresent(
              a -> {
                var onNode = out.computeIfAbsent(a.node(), n -> new HashMap<>());
                a.devices().forEach(d -> onNode.put(d.device(), c.metadata().name()));
              });
    }
    return out;
  }
}
