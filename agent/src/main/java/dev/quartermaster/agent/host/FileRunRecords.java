package dev.quartermaster.agent.host;

import dev.quartermaster.agent.runtime.TaskHandle;
import dev.quartermaster.core.files.BootScopedFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Run records as one small file per task, {@code <dir>/<task>.run}: the task's uid, and the pid
 * and start time of its process (the pid alone could name a later, unrelated process).
 */
public final class FileRunRecords implements RunRecords {
  private static final Logger LOG = LoggerFactory.getLogger(FileRunRecords.class);
  private static final String SUFFIX = ".run";
  /** How long a killed leftover may take to die before start-up goes on without it. */
  private static final long DEATH_WAIT_SECONDS = 10;

  private final Path dir;
  private final List<String> podman;

  /** @param podman podman and its global flags, to stop a container a record names */
  public FileRunRecords(Path dir, List<String> podman) {
    this.dir = dir;
    this.podman = List.copyOf(podman);
  }

  /** What one record file says. */
  private record Run(String uid, long pid, Optional<Instant> start, Optional<String> container) {}

  @Override
  public void started(String task, String uid, TaskHandle handle) throws IOException {
    if (!Files.isDirectory(dir)) { // asked first: on an existing directory the JDK throws and catches twice
      Files.createDirectories(dir);
    }
    var text = new StringBuilder("uid=").append(uid).append('\n');
    handle.process().ifPresent(p -> {
      text.append("pid=").append(p.pid()).append('\n');
      p.info().startInstant().ifPresent(s -> text.append("start=").append(s).append('\n'));
    });
    handle.container().ifPresent(c -> text.append("container=").append(c).append('\n'));
    // Owner-only from its first byte, like everything else in the state directory (it names pids);
    // a process does not outlive a reboot, so neither need its record (BootScopedFile: no fsync).
    BootScopedFile.replace(file(task), dir.resolve(task + ".run.tmp"), text.toString().getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public void remove(String task) {
    try {
      Files.deleteIfExists(file(task));
    } catch (IOException e) {
      // a stale record only makes a later start look for a process that is gone
    }
  }

  @Override
  public Map<String, Leftover> stopAll() {
    var out = new TreeMap<String, Leftover>();
    if (!Files.isDirectory(dir)) {
      return out;
    }
    try (var files = Files.list(dir)) {
      for (var f : files.filter(p -> p.getFileName().toString().endsWith(SUFFIX)).sorted().toList()) {
        var name = f.getFileName().toString();
        var task = name.substring(0, name.length() - SUFFIX.length());
        read(f).ifPresent(run -> out.put(task, new Leftover(run.uid(), stop(run) + stopContainer(run))));
        Files.deleteIfExists(f);
      }
    } catch (IOException e) {
      LOG.error("cannot read the run records in {}: processes an earlier agent started may still run", dir, e);
    }
    out.forEach((task, l) -> LOG.info("task {} (uid {}) from an earlier agent: {}", task, l.uid(), l.found()));
    return out;
  }

  private static Optional<Run> read(Path f) {
    try {
      var fields = new HashMap<String, String>();
      for (var line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
        int eq = line.indexOf('=');
        if (eq > 0) {
          fields.put(line.substring(0, eq), line.substring(eq + 1));
        }
      }
      var uid = fields.get("uid");
      if (uid == null) {
        return Optional.empty();
      }
      long pid = fields.containsKey("pid") ? Long.parseLong(fields.get("pid")) : -1;
      return Optional.of(new Run(uid, pid, Optional.ofNullable(fields.get("start")).map(Instant::parse),
          Optional.ofNullable(fields.get("container"))));
    } catch (IOException | RuntimeException e) {
      LOG.warn("unreadable run record {}: {}", f, e.toString());
      return Optional.empty();
    }
  }

  /** Kills the process {@code run} names if it still runs (same pid, same start time), and waits for it. */
  private static String stop(Run run) {
    if (run.pid() < 0) {
      return "no process was recorded";
    }
    var process = ProcessHandle.of(run.pid())
        .filter(ProcessHandle::isAlive)
        .filter(p -> run.start().isPresent() && p.info().startInstant().equals(run.start()));
    if (process.isEmpty()) {
      return "its process " + run.pid() + " was gone";
    }
    process.get().descendants().forEach(ProcessHandle::destroyForcibly);
    process.get().destroyForcibly();
    try {
      process.get().onExit().get(DEATH_WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      return "its process " + run.pid() + " was still running; killed, but it had not exited after "
          + DEATH_WAIT_SECONDS + " s";
    }
    return "its process " + run.pid() + " was still running and was killed";
  }

  /**
   * Kills and removes the container a record names, if any: killing {@code podman run} leaves the
   * container running under its monitor. Says what happened, for the task's status.
   */
  private String stopContainer(Run run) {
    if (run.container().isEmpty()) {
      return "";
    }
    var name = run.container().get();
    var args = new ArrayList<>(podman);
    args.addAll(List.of("rm", "--force", "--time", "0", name));
    try {
      var rm = new ProcessBuilder(args).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      if (!rm.waitFor(DEATH_WAIT_SECONDS, TimeUnit.SECONDS)) {
        rm.destroyForcibly();
        return "; podman rm of its container " + name + " did not finish in " + DEATH_WAIT_SECONDS + " s";
      }
      return rm.exitValue() == 0 ? "; its container " + name + " was removed" : "; its container " + name + " was gone";
    } catch (IOException e) {
      return "; its container " + name + " could not be removed: " + e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "; interrupted while removing its container " + name;
    }
  }

  private Path file(String task) {
    return dir.resolve(task + SUFFIX);
  }
}
