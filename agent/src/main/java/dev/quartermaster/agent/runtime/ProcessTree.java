package dev.quartermaster.agent.runtime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The host's processes as one tree, read once (at the first question) for a batch of kills. The
 * JDK's {@code descendants()} reads every process of the host for each call: stopping an agent
 * with a thousand tasks on a host with as many processes read a million {@code /proc} entries
 * (fifteen seconds for {@code qm up} to stop). Not thread-safe: one batch, one thread.
 */
public final class ProcessTree {
  /** Parent pid → its children; null until first asked. */
  private Map<Long, List<ProcessHandle>> children;

  private ProcessTree() {}

  /** A tree read when first asked, then kept. */
  public static ProcessTree onDemand() {
    return new ProcessTree();
  }

  /** Kills {@code root} and every process under it (SIGKILL): the children first, found before their parent dies. */
  public void kill(ProcessHandle root) {
    descendants(root.pid()).forEach(ProcessHandle::destroyForcibly);
    root.destroyForcibly();
  }

  /** Every process under {@code pid}, as the tree was read. */
  public List<ProcessHandle> descendants(long pid) {
    if (children == null) {
      children = new HashMap<>();
      ProcessHandle.allProcesses().forEach(p ->
          p.parent().ifPresent(parent -> children.computeIfAbsent(parent.pid(), k -> new ArrayList<>()).add(p)));
    }
    var out = new ArrayList<ProcessHandle>();
    var seen = new HashSet<Long>(List.of(pid)); // parents are read one by one: a pid reused meanwhile must not loop
    var next = new ArrayDeque<Long>(List.of(pid));
    while (!next.isEmpty()) {
      for (var child : children.getOrDefault(next.poll(), List.of())) {
        if (seen.add(child.pid())) {
          out.add(child);
          next.add(child.pid());
        }
      }
    }
    return out;
  }

  /** Alive and not a zombie: a process that exited but was not reaped yet holds nothing any more. */
  public static boolean running(ProcessHandle p) {
    return p.isAlive() && state(p.pid()).filter(s -> s == 'Z' || s == 'X').isEmpty();
  }

  /**
   * The state letter of process {@code pid} in {@code /proc/<pid>/stat} ('R', 'S', 'Z', …), the
   * field after the name in parentheses, which may itself hold spaces and parentheses. Empty when
   * it cannot be read: gone, or not Linux (then only {@link ProcessHandle#isAlive} says).
   */
  public static Optional<Character> state(long pid) {
    // Read by line: procfs reports a size of 0, which a whole-file read may take at its word.
    try (var reader = Files.newBufferedReader(Path.of("/proc", Long.toString(pid), "stat"))) {
      var stat = reader.readLine();
      int close = stat == null ? -1 : stat.lastIndexOf(')');
      return close >= 0 && close + 2 < stat.length() ? Optional.of(stat.charAt(close + 2)) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty(); // gone meanwhile, or no procfs
    }
  }
}
