package dev.quartermaster.agent.discovery;

import java.util.List;
import java.util.Objects;

/** What one look at the GPUs found: the usable ones and every problem, or why there was no look. */
public sealed interface DiscoveryResult {

  /**
   * GPUs found by {@code source} ("nvml", "proc"). {@code problems} names every GPU that was seen
   * and left out, with the exact path or call at fault; nothing is dropped silently.
   */
  record Found(String source, List<DiscoveredGpu> gpus, List<String> problems)
      implements DiscoveryResult {
    public Found {
      Objects.requireNonNull(source, "source");
      gpus = List.copyOf(gpus);
      problems = List.copyOf(problems);
    }
  }

  /** The backend cannot look here at all (no library, no driver), and why. */
  record Unavailable(String source, String reason) implements DiscoveryResult {
    public Unavailable {
      Objects.requireNonNull(source, "source");
      Objects.requireNonNull(reason, "reason");
    }
  }
}
