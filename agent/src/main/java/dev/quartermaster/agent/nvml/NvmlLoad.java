package dev.quartermaster.agent.nvml;

import java.util.Objects;

/** The result of loading NVML: the bound library, or why not (absent library, missing symbol). */
public sealed interface NvmlLoad {
  record Loaded(NvmlLibrary library) implements NvmlLoad {
    public Loaded {
      Objects.requireNonNull(library, "library");
    }
  }

  record Unavailable(String reason) implements NvmlLoad {
    public Unavailable {
      Objects.requireNonNull(reason, "reason");
    }
  }
}
