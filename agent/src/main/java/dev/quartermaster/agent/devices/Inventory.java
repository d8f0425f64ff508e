package dev.quartermaster.agent.devices;

import dev.quartermaster.agent.discovery.DiscoveredChannel;
import dev.quartermaster.agent.discovery.DiscoveredGpu;
import dev.quartermaster.agent.discovery.DiscoveryResult;
import dev.quartermaster.agent.discovery.ImexChannels;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What one discovery found: the usable GPUs, which backend found them, and every problem with what
 * it left out, each naming the exact path (never silently dropped: an incomplete device set must be
 * visible); and the IMEX channels, with their own problems or why there are none.
 */
public record Inventory(
    String source, List<DiscoveredGpu> gpus, List<String> problems, ImexChannels channels) {
  public Inventory {
    Objects.requireNonNull(source, "source");
    gpus = List.copyOf(gpus);
    problems = List.copyOf(problems);
    Objects.requireNonNull(channels, "channels");
  }

  /** GPUs only: a device tree that does not look for channels. */
  public Inventory(String source, List<DiscoveredGpu> gpus, List<String> problems) {
    this(source, gpus, problems, ImexChannels.NONE);
  }

  /**
   * The inventory a discovery result describes; a backend that could not look found nothing, and
   * says why.
   */
  public static Inventory of(DiscoveryResult result) {
    return of(result, ImexChannels.NONE);
  }

  /** As {@link #of(DiscoveryResult)}, with the channels a scan found. */
  public static Inventory of(DiscoveryResult result, ImexChannels channels) {
    return switch (result) {
      case DiscoveryResult.Found f -> new Inventory(f.source(), f.gpus(), f.problems(), channels);
      case DiscoveryResult.Unavailable u ->
          new Inventory(u.source(), List.of(), List.of(u.reason()), channels);
    };
  }

  public Optional<DiscoveredChannel> channel(String name) {
    return channels.channel(name);
  }

  public Optional<DiscoveredGpu> gpu(String name) {
    return gpus.stream().filter(g -> g.name().equals(name)).findFirst();
  }
}
