package dev.quartermaster.agent.logs;

import dev.quartermaster.agent.tasks.TaskLogs;
import dev.quartermaster.api.logs.LogOptions;
import dev.quartermaster.core.env.Env;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * A node's task output, bounded and read back. Each task writes its own file (opened for append, so
 * it survives the agent's restarts without a pipe); every {@link #tick} the agent notes how long
 * each running task's output is (for {@code sinceSeconds}) and rotates one past {@code maxBytes}:
 * the file is copied to {@code <task>.log.1}, replacing the part rotated before (whose bytes are
 * dropped and counted), and truncated, and a line saying so is appended. So a task keeps at most
 * about twice {@code maxBytes}. A write landing in the instant between the copy and the truncation
 * is lost, as with logrotate's copytruncate: the price of not holding the task's pipe.
 */
public final class TaskLogStore {
  /** How much output a task keeps in its current file before it is rotated. */
  public static final long DEFAULT_MAX_BYTES = 16L * 1024 * 1024;

  private final Function<String, Path> logOf;
  private final long maxBytes;
  private final Env env;
  private final Map<String, Kept> kept = new ConcurrentHashMap<>();

  /** What the agent knows of one task's current attempt. */
  private static final class Kept {
    final LogTimeline timeline = new LogTimeline();
    Object fileKey;
    long dropped;
    long rotations;
  }

  /**
   * @param logOf where a task's current output is
   * @param maxBytes how large the current file may grow before it is rotated
   */
  public TaskLogStore(Function<String, Path> logOf, long maxBytes, Env env) {
    this.logOf = Objects.requireNonNull(logOf, "logOf");
    this.env = Objects.requireNonNull(env, "env");
    if (maxBytes < 1024) {
      throw new IllegalArgumentException("task log size must be >= 1024 bytes, got " + maxBytes);
    }
    this.maxBytes = maxBytes;
  }

  /** Notes each running task's output length, and rotates those past the bound. */
  public void tick(Collection<String> running) {
    long second = env.now().getEpochSecond();
    for (var task : running) {
      var current = logOf.apply(task);
      try {
        var state = stateOf(task, current);
        if (state == null) {
          continue;
        }
        synchronized (state) {
          if (Files.size(current) > maxBytes) {
            rotate(state, current);
          }
          state.timeline.sample(second, lengthOf(current));
        }
      } catch (NoSuchFileException e) {
        // not started yet, or just ended and moved aside
      } catch (IOException e) {
        org.slf4j.LoggerFactory.getLogger(TaskLogStore.class)
            .warn("task {}: cannot look after its output {}: {}", task, current, e.toString());
      }
    }
  }

  /** Forgets tasks no longer on the node. */
  public void retain(Collection<String> tasks) {
    kept.keySet().retainAll(java.util.Set.copyOf(tasks));
  }

  /**
   * The state of {@code task}'s current attempt: a new file (another attempt) starts afresh; null
   * when there is no file.
   */
  private Kept stateOf(String task, Path current) throws IOException {
    Object key;
    try {
      key = Files.readAttributes(current, BasicFileAttributes.class).fileKey();
    } catch (NoSuchFileException e) {
      return null;
    }
    var state = kept.computeIfAbsent(task, t -> new Kept());
    synchronized (state) {
      if (!Objects.equals(state.fileKey, key)) {
        state.fileKey = key;
        state.timeline.clear();
        state.dropped = 0;
        state.rotations = 0;
      }
    }
    return state;
  }

  private static long lengthOf(Path current) throws IOException {
    var rotated = TaskLogs.rotated(current);
    return Files.size(current) + (Files.exists(rotated) ? Files.size(rotated) : 0);
  }

  private void rotate(Kept state, Path current) throws IOException {
    var rotated = TaskLogs.rotated(current);
    long droppedNow = Files.exists(rotated) ? Files.size(rotated) : 0;
    var copy = current.resolveSibling(current.getFileName() + ".1.tmp");
    long moved;
    try (var from = FileChannel.open(current, StandardOpenOption.READ, StandardOpenOption.WRITE);
        var to =
            FileChannel.open(
                copy,
                StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
      long pos = 0;
      // Copy to the end, and again what was written meanwhile, then cut: the window in which a
      // write can be lost is the last size check to the truncation.
      for (int round = 0; round < 3; round++) {
        long size = from.size();
        while (pos < size) {
          pos += from.transferTo(pos, size - pos, to);
        }
        if (from.size() == size) {
          break;
        }
      }
      from.truncate(0);
      moved = pos;
    }
    Files.move(copy, rotated, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    state.dropped += droppedNow;
    state.rotations++;
    state.timeline.drop(droppedNow);
    var notice =
        "[quartermaster: this task's output passed "
            + maxBytes
            + " bytes: the "
            + moved
            + " before this line are kept aside"
            + (state.dropped > 0
                ? ", and " + state.dropped + " older bytes were dropped"
                : ", nothing dropped yet")
            + "]\n";
    Files.writeString(current, notice, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
  }

  /** Whether {@code task} has output here (of its previous attempt, with {@code previous}). */
  public boolean has(String task, boolean previous) {
    var current = logOf.apply(task);
    return previous
        ? Files.exists(TaskLogs.previous(current))
        : Files.exists(current) || Files.exists(TaskLogs.rotated(current));
  }

  /** How {@link #stream} waits for more output while following. */
  public interface Pause {
    void pause() throws InterruptedException;
  }

  /**
   * Writes {@code task}'s output as {@code options} ask to {@code out}; with {@code follow}, keeps
   * writing what is appended until {@code running} says the task's process ended. False when the
   * task has no output here (never started on this node, or no previous attempt).
   */
  public boolean stream(
      String task, LogOptions options, BooleanSupplier running, OutputStream out, Pause pause)
      throws IOException, InterruptedException {
    var current = logOf.apply(task);
    var files =
        options.previous()
            ? List.of(TaskLogs.previous(current))
            : List.of(TaskLogs.rotated(current), current);
    var state = options.previous() ? null : kept.get(task);
    long limit = options.limitBytes().orElse(Long.MAX_VALUE);
    long rotationsAtOpen;
    long currentAtOpen;
    try (var output = TaskOutput.open(files).orElse(null)) {
      if (output == null) {
        return false;
      }
      rotationsAtOpen = state == null ? 0 : rotationsOf(state);
      long start = startOf(output, files, options, state);
      long copied = output.copy(start, limit, out);
      limit -= copied;
      currentAtOpen = output.sizeAtOpen(current);
    }
    out.flush();
    if (!options.follow()) {
      return true;
    }
    long pos = currentAtOpen;
    long rotations = rotationsAtOpen;
    while (limit > 0) {
      boolean last = !running.getAsBoolean();
      var now = kept.get(task);
      if (now != null && rotationsOf(now) != rotations) {
        // What was after pos in the current file is now in the rotated one.
        limit -= copyFile(TaskLogs.rotated(current), pos, limit, out);
        rotations = rotationsOf(now);
        pos = 0;
      }
      long n = copyFile(current, pos, limit, out);
      pos += n;
      limit -= n;
      out.flush();
      if (last) {
        return true;
      }
      pause.pause();
    }
    return true;
  }

  private static long rotationsOf(Kept state) {
    synchronized (state) {
      return state.rotations;
    }
  }

  private long startOf(TaskOutput output, List<Path> files, LogOptions options, Kept state)
      throws IOException {
    long start = 0;
    if (options.sinceSeconds().isPresent()) {
      long cutoff = env.now().getEpochSecond() - options.sinceSeconds().getAsLong();
      long lastWritten = 0;
      for (var f : files) {
        if (Files.exists(f)) {
          lastWritten =
              Math.max(lastWritten, Files.getLastModifiedTime(f).toInstant().getEpochSecond());
        }
      }
      if (lastWritten < cutoff) {
        return output.length(); // nothing written since
      }
      start = output.lineStartFrom(state == null ? 0 : state.timeline.startOf(cutoff));
    }
    if (options.tailLines().isPresent()) {
      start = Math.max(start, output.startOfLastLines(options.tailLines().getAsLong()));
    }
    return start;
  }

  private static long copyFile(Path file, long from, long limit, OutputStream out)
      throws IOException {
    try (var output = TaskOutput.open(List.of(file)).orElse(null)) {
      if (output == null || output.length() <= from) {
        return 0;
      }
      return output.copy(from, limit, out);
    }
  }
}
