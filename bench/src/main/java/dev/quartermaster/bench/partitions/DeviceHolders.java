package dev.quartermaster.bench.partitions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Who holds which device, judged from the process table as the kernel sees it: every live process
 * whose output goes to a task log under one of the lab's agents (its node) and whose environment
 * names the GPUs and claims the agent gave it. Sampled through a run, this is I1 among processes:
 * no GPU of a node in live processes of two claims at once, whatever the control plane believes.
 */
final class DeviceHolders {
  /** One live process holding GPUs. */
  record Holder(long pid, String node, String task, String claims, List<String> gpus) {}

  private DeviceHolders() {}

  /**
   * The live processes of tasks run by agents whose state is under {@code labDir} (those without
   * GPUs too, with none listed).
   */
  static List<Holder> scan(Path labDir) {
    var out = new ArrayList<Holder>();
    try (var pids = Files.list(Path.of("/proc"))) {
      for (var dir :
          pids.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
              .toList()) {
        holder(dir, labDir).ifPresent(out::add);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot read /proc: " + e.getMessage(), e);
    }
    return out;
  }

  private static Optional<Holder> holder(Path proc, Path labDir) {
    try {
      var output = Files.readSymbolicLink(proc.resolve("fd").resolve("1"));
      if (!output.startsWith(labDir) || !output.toString().endsWith(".log")) {
        return Optional.empty();
      }
      var stat = Files.readString(proc.resolve("stat"));
      var state = stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state.equals("Z") || state.equals("X")) {
        return Optional.empty();
      }
      var environment = Files.readString(proc.resolve("environ")).split("\0");
      String gpus = null;
      String claims = null;
      for (var entry : environment) {
        if (entry.startsWith("QUARTERMASTER_GPU_UUIDS=")) {
          gpus = entry.substring(entry.indexOf('=') + 1);
        } else if (entry.startsWith("QUARTERMASTER_CLAIM_UIDS=")) {
          claims = entry.substring(entry.indexOf('=') + 1);
        }
      }
      var node = labDir.relativize(output).getName(0).toString();
      var task = output.getFileName().toString().replaceFirst("\\.log$", "");
      return Optional.of(
          new Holder(
              Long.parseLong(proc.getFileName().toString()),
              node,
              task,
              claims == null ? "" : claims,
              gpus == null || gpus.isBlank() ? List.of() : List.of(gpus.split(","))));
    } catch (IOException | RuntimeException e) {
      return Optional.empty(); // ended while read, or not ours to read
    }
  }

  /** I1 among processes: one line per GPU of a node held by live processes of two claims. */
  static List<String> violations(List<Holder> holders) {
    var byGpu = new TreeMap<String, Map<String, Set<String>>>();
    for (var h : holders) {
      for (var gpu : h.gpus()) {
        byGpu
            .computeIfAbsent(h.node() + "/" + gpu, g -> new TreeMap<>())
            .computeIfAbsent(h.claims(), c -> new TreeSet<>())
            .add(h.task() + " pid " + h.pid());
      }
    }
    var out = new ArrayList<String>();
    byGpu.forEach(
        (gpu, claims) -> {
          if (claims.size() > 1) {
            out.add("I1 processes: " + gpu + " held by claims " + claims);
          }
        });
    return out;
  }

  /** Stops every task process left under {@code labDir} (the agents leave them running). */
  static void killAll(Path labDir) {
    for (var h : scan(labDir)) {
      ProcessHandle.of(h.pid()).ifPresent(ProcessHandle::destroyForcibly);
    }
  }
}
