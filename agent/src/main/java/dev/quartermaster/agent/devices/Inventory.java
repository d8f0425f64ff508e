package dev.quartermaster.agent.devices;

import dev.quartermaster.agent.discovery.DiscoveredGpu;
import dev.quartermaster.agent.discovery.DiscoveryResult;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What one discovery found: the usable GPUs, which backend found them, and every problem with
 * what it left out, each naming the exact path (never silently dropped: an incomplete device set
 * must be visible).
 */
public record Inventory(String source, List<DiscoveredGpu> gpus, List<String> problems) {
  public Inventory {
    Objects.requireNonNull(source, "source");
    gpus = List.copyOf(gpus);
    problems = List.copyOf(problems);
  }

  /** The inventory a discovery result describes; a backend that could not look found nothing, and says why. */
  public static Inventory of(DiscoveryResult result) {
    return switch (result) {
      case DiscoveryResult.Found f -> new Inventory(f.source(), f.gpus(), f.problems());
      case DiscoveryResult.Unavailable u -> new Inventory(u.source(), List.of(), List.of(u.reason()));
    };
  }

  public Optional<DiscoveredGpu> gpu(String name) {
    return gpus.stream().filter(g -> g.name().equals(name)).findFirst();
  }
}
