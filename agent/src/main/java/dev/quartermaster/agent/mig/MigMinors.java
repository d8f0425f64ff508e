package dev.quartermaster.agent.mig;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The capability minors the driver gives MIG access files, as {@code
 * /proc/driver/nvidia-caps/mig-minors} lists them: one {@code <path> <minor>} a line ({@code
 * gpu0/gi3/access 30}, {@code gpu0/gi3/ci0/access 31}); a process on an instance needs {@code
 * /dev/nvidia-caps/nvidia-cap<minor>} for the GI's and the CI's. Lines that are not a path and a
 * number are skipped, so that a driver adding kinds of lines does not stop the agent.
 */
public record MigMinors(Map<String, Integer> byPath) {
  /** Where the driver lists them. */
  public static final String PROC_FILE = "/proc/driver/nvidia-caps/mig-minors";

  public MigMinors {
    byPath = Map.copyOf(byPath);
  }

  public static MigMinors parse(String text) {
    var out = new TreeMap<String, Integer>();
    for (var line : text.split("\n")) {
      var parts = line.strip().split("\\s+");
      if (parts.length != 2) {
        continue;
      }
      try {
        out.put(parts[0], Integer.parseInt(parts[1]));
      } catch (NumberFormatException e) {
        // not a minor: skipped, as the class says
      }
    }
    return new MigMinors(out);
  }

  /** The minor of GPU instance {@code gi}'s access file on GPU {@code gpu} (its NVML index). */
  public Optional<Integer> gpuInstance(int gpu, int gi) {
    return Optional.ofNullable(byPath.get("gpu" + gpu + "/gi" + gi + "/access"));
  }

  /** The minor of compute instance {@code ci}'s access file in GPU instance {@code gi}. */
  public Optional<Integer> computeInstance(int gpu, int gi, int ci) {
    return Optional.ofNullable(byPath.get("gpu" + gpu + "/gi" + gi + "/ci" + ci + "/access"));
  }
}
