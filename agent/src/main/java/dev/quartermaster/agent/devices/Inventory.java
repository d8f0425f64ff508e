package dev.quartermaster.agent.devices;

import java.util.List;
import java.util.Optional;

/**
 * What a scan of the device root found: the usable GPUs, and every problem with what it skipped,
 * each naming the exact path (never silently dropped: an incomplete device set must be visible).
 */
public record Inventory(List<Gpu> gpus, List<String> problems) {
  public Inventory {
    gpus = List.copyOf(gpus);
    problems = List.copyOf(problems);
  }

  public Optional<Gpu> gpu(String name) {
    return gpus.stream().filter(g -> g.name().equals(name)).findFirst();
  }
}
