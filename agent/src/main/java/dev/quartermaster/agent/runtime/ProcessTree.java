package dev.quartermaster.agent.runtime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The processes under a task's process, found without reading every process of the host: the JDK's
 * {@code descendants()} does read them all, for each call, so stopping an agent with a thousand
 * tasks on a host with as many processes read a million {@code /proc} entries (fifteen seconds for
 * {@code qm up} to stop). Where the kernel lists each process's children, only the subtree is read;
 * elsewhere the host's tree is read once for a batch of kills. Not thread-safe: one batch, one
 * thread.
 */
public final class ProcessTree {
  /** How often {@link #awaitGone} looks again. */
  private static final long POLL_MILLIS = 50;

  /** Whether to ask the kernel's lists of children first. */
  private final boolean listed;

  /** The host's whole tree, parent pid → its children, once it had to be read; null before. */
  private Map<Long, List<ProcessHandle>> children;

  private ProcessTree(boolean listed) {
    this.listed = listed;
  }

  /** For one kill, or a batch of them: reads what it must when first asked. */
  public static ProcessTree onDemand() {
    return new ProcessTree(true);
  }

  /**
   * As on a kernel without lists of children: the host's whole tree, read once (tests of that
   * path).
   */
  static ProcessTree scanning() {
    return new ProcessTree(false);
  }

  /**
   * Kills {@code root} and every process under it (SIGKILL): the children first, found before their
   * parent dies.
   */
  public void kill(ProcessHandle root) {
    descendants(root.pid()).forEach(ProcessHandle::destroyForcibly);
    root.destroyForcibly();
  }

  /**
   * Asks {@code root} and every process under it to stop (SIGTERM): all of them, as a container
   * runtime signals its whole process group, so none is left behind when the root exits.
   */
  public void terminate(ProcessHandle root) {
    descendants(root.pid()).forEach(ProcessHandle::destroy);
    root.destroy();
  }

  /**
   * Every process under {@code pid}. Linux lists each thread's children in {@code
   * /proc/<pid>/task/<tid>/children}: walking those reads the subtree alone. Where the kernel does
   * not offer them, the host's whole tree is read (once for this batch).
   */
  public List<ProcessHandle> descendants(long pid) {
    var out = new ArrayList<ProcessHandle>();
    var seen = new HashSet<Long>(List.of(pid)); // a pid reused meanwhile must not loop
    var next = new ArrayDeque<Long>(List.of(pid));
    while (!next.isEmpty()) {
      for (var child : childrenOf(next.poll())) {
        if (seen.add(child.pid())) {
          out.add(child);
          next.add(child.pid());
        }
      }
    }
    return out;
  }

  private List<ProcessHandle> childrenOf(long pid) {
    if (children == null) {
      var kernel = listed ? listedChildren(pid) : Optional.<List<ProcessHandle>>empty();
      if (kernel.isPresent()) {
        return kernel.get();
      }
      children = new HashMap<>();
      ProcessHandle.allProcesses()
          .forEach(
              p ->
                  p.parent()
                      .ifPresent(
                          parent ->
                              children
                                  .computeIfAbsent(parent.pid(), k -> new ArrayList<>())
                                  .add(p)));
    }
    return children.getOrDefault(pid, List.of());
  }

  /**
   * The children the kernel lists for {@code pid}'s threads (none if it is gone); empty when the
   * kernel keeps no such lists or they cannot be read.
   */
  private static Optional<List<ProcessHandle>> listedChildren(long pid) {
    var tasks = Path.of("/proc", Long.toString(pid), "task");
    var out = new ArrayList<ProcessHandle>();
    try (var threads = Files.list(tasks)) {
      for (var thread : threads.toList()) {
        var file = thread.resolve("children");
        if (!Files.exists(file)) {
          if (Files.exists(thread)) {
            return Optional.empty(); // a kernel without the lists
          }
          continue; // the thread ended meanwhile
        }
        try (var reader = Files.newBufferedReader(file)) { // procfs: read by line, see state()
          var line = reader.readLine();
          if (line != null && !line.isBlank()) {
            for (var child : line.strip().split(" ")) {
              ProcessHandle.of(Long.parseLong(child)).ifPresent(out::add);
            }
          }
        } catch (NoSuchFileException e) {
          // the thread ended meanwhile
        }
      }
    } catch (NoSuchFileException e) {
      return Optional.of(List.of()); // the process is gone: nothing under it any more
    } catch (IOException | UncheckedIOException e) {
      return Optional.empty(); // cannot be read (not ours to read?): the whole tree says
    }
    return Optional.of(out);
  }

  /**
   * Waits until every one of {@code processes} has stopped {@link #running}, for about {@code
   * bound} at most; returns those still running then. A process that is not our child is awaited by
   * the JDK's own poll, which counts a zombie as alive: after an agent restart, processes of the
   * earlier one are init's, and an init that reaps late, or never, made each wait its whole bound.
   * Each pass either takes a poll's time or finds one exited, so the passes bound the wait without
   * a clock.
   */
  public static List<ProcessHandle> awaitGone(List<ProcessHandle> processes, Duration bound) {
    var left = new ArrayList<>(processes);
    for (long pass = 0, passes = bound.toMillis() / POLL_MILLIS; pass < passes; pass++) {
      left.removeIf(p -> !running(p));
      if (left.isEmpty()) {
        break;
      }
      try {
        left.getFirst().onExit().get(POLL_MILLIS, TimeUnit.MILLISECONDS);
      } catch (TimeoutException | ExecutionException e) {
        // not gone yet (or its exit cannot be awaited): look at all of them again
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    left.removeIf(p -> !running(p));
    return left;
  }

  /**
   * Alive and not a zombie: a process that exited but was not reaped yet holds nothing any more.
   */
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
      return close >= 0 && close + 2 < stat.length()
          ? Optional.of(stat.charAt(close + 2))
          : Optional.empty();
    } catch (IOException e) {
      return Optional.empty(); // gone meanwhile, or no procfs
    }
  }
}
