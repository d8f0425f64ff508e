package dev.quartermaster.agent.host;

import dev.quartermaster.agent.runtime.TaskHandle;
import dev.quartermaster.core.files.BootScopedFile;
import dev.quartermaster.core.files.OwnerOnly;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Run records as one append-only file per agent, {@code <dir>/runs.log}: a line when a task's
 * process starts (the task's uid, and the pid and start time of its process, since the pid alone
 * could name a later, unrelated process; or its container), and a line when it is known gone.
 *
 * <p>One file, not one per task: a file per task was made (through a temp file and a rename) and
 * removed for every task, and on a busy node creating files is what the kernel spends most on (ext4
 * without a journal searches past every recently freed inode). An appended line is one {@code
 * write}, which a crash of the agent cannot tear: the kernel holds it whole for the next agent.
 * Nothing is fsynced: a process does not outlive a reboot, so neither need its record (as {@link
 * BootScopedFile}). The file is rewritten with only the live records once it holds {@link
 * #COMPACT_AFTER_ENDED} ended ones and more ended than live, so it stays small. Records in the
 * earlier format ({@code <dir>/<task>.run}, one per task) are still read and stopped by {@link
 * #stopAll}, so an agent upgraded under running tasks stops them too.
 *
 * <p>Thread-safe: appends, the rewrite and {@link #stopAll} hold one lock.
 */
public final class FileRunRecords implements RunRecords {
  private static final Logger LOG = LoggerFactory.getLogger(FileRunRecords.class);

  /** The file, in the run-record directory. */
  public static final String FILE = "runs.log";

  private static final String LEGACY_SUFFIX = ".run";

  /** How many ended records the file may hold before it is rewritten with the live ones only. */
  static final int COMPACT_AFTER_ENDED = 1024;

  /** How long {@code podman rm} of a leftover container may take. */
  private static final long DEATH_WAIT_SECONDS = LeftoverProcesses.DEATH_WAIT_SECONDS;

  private final Path dir;
  private final Path file;
  private final List<String> podman;
  private final ReentrantLock lock = new ReentrantLock();

  /**
   * The records of processes not known to be gone, by task: what a rewrite keeps. Guarded by lock.
   */
  private final Map<String, RunLine.Started> live = new TreeMap<>();

  /** Ended records in the file since it was last written whole. Guarded by lock. */
  private int ended;

  /**
   * @param podman podman and its global flags, to stop a container a record names
   */
  public FileRunRecords(Path dir, List<String> podman) {
    this.dir = dir;
    this.file = dir.resolve(FILE);
    this.podman = List.copyOf(podman);
  }

  @Override
  public void started(String task, String uid, TaskHandle handle) throws IOException {
    var pid = handle.process().map(ProcessHandle::pid);
    var start = handle.process().flatMap(p -> p.info().startInstant());
    var record = new RunLine.Started(task, uid, pid, start, handle.container());
    lock.lock();
    try {
      append(record);
      live.put(task, record);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void remove(String task) {
    lock.lock();
    try {
      if (live.remove(task) == null) {
        return; // never recorded by this agent: nothing in the file names it
      }
      append(new RunLine.Ended(task));
      ended++;
      if (ended >= COMPACT_AFTER_ENDED && ended > live.size()) {
        rewrite();
      }
    } catch (IOException e) {
      // a stale record only makes a later start look for a process that is gone
      LOG.warn("cannot record in {} that task {} ended: {}", file, task, e.toString());
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Map<String, Leftover> stopAll() {
    var leftovers = new TreeMap<String, Leftover>();
    lock.lock();
    try {
      var found = new TreeMap<String, RunLine.Started>();
      try {
        found.putAll(readLegacy());
      } catch (IOException e) {
        LOG.error(
            "cannot read the run records of the earlier format in {}: processes an earlier agent started may still run",
            dir,
            e);
      }
      boolean read = false;
      try {
        found.putAll(read());
        read = true;
      } catch (IOException e) {
        // Kept, not removed: the next start reads it again.
        LOG.error(
            "cannot read the run records {}: processes an earlier agent started may still run",
            file,
            e);
      }
      var stopped = LeftoverProcesses.stop(found, dir);
      found.forEach(
          (task, run) ->
              leftovers.put(task, new Leftover(run.uid(), stopped.get(task) + stopContainer(run))));
      live.clear();
      ended = 0;
      try {
        if (read) {
          Files.deleteIfExists(file);
        }
      } catch (IOException e) {
        LOG.warn("cannot remove the run records {} once read: {}", file, e.toString());
      }
    } finally {
      lock.unlock();
    }
    leftovers.forEach(
        (task, l) ->
            LOG.info("task {} (uid {}) from an earlier agent: {}", task, l.uid(), l.found()));
    return leftovers;
  }

  /** The records in the file still live at its end (started and not ended), by task. */
  private Map<String, RunLine.Started> read() throws IOException {
    var found = new TreeMap<String, RunLine.Started>();
    if (!Files.exists(file)) {
      return found;
    }
    int number = 0;
    for (var line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      number++;
      var parsed = RunLine.parse(line);
      if (parsed.isEmpty()) {
        // Only a power loss tears a line, and then no process of the record's boot runs any more.
        LOG.warn("run records {}: line {} is not a record, skipped: {}", file, number, line);
        continue;
      }
      switch (parsed.get()) {
        case RunLine.Started started -> found.put(started.task(), started);
        case RunLine.Ended gone -> found.remove(gone.task());
      }
    }
    return found;
  }

  /** Records of the earlier format, one file per task; each file is removed once read. */
  private Map<String, RunLine.Started> readLegacy() throws IOException {
    var found = new TreeMap<String, RunLine.Started>();
    if (!Files.isDirectory(dir)) {
      return found;
    }
    try (var files = Files.list(dir)) {
      for (var f :
          files.filter(p -> p.getFileName().toString().endsWith(LEGACY_SUFFIX)).sorted().toList()) {
        var name = f.getFileName().toString();
        var task = name.substring(0, name.length() - LEGACY_SUFFIX.length());
        legacyRecord(task, f).ifPresent(run -> found.put(task, run));
        Files.deleteIfExists(f);
      }
    }
    return found;
  }

  /**
   * An earlier-format file holds a started line's fields, one {@code key=value} a line: read by the
   * same rules.
   */
  private static Optional<RunLine.Started> legacyRecord(String task, Path f) {
    try {
      var fields =
          Files.readAllLines(f, StandardCharsets.UTF_8).stream().filter(l -> !l.isEmpty()).toList();
      var record =
          RunLine.parse("started\t" + task + "\t" + String.join("\t", fields))
              .filter(RunLine.Started.class::isInstance)
              .map(RunLine.Started.class::cast);
      if (record.isEmpty()) {
        LOG.warn("unreadable run record {}", f);
      }
      return record;
    } catch (IOException e) {
      LOG.warn("unreadable run record {}: {}", f, e.toString());
      return Optional.empty();
    }
  }

  /**
   * Appends {@code line} in one write. The file is opened for each record rather than kept open:
   * the agent has no close to release it at, and opening an existing file is a lookup, not the
   * inode search that creating one is.
   */
  private void append(RunLine line) throws IOException {
    if (!Files.isDirectory(
        dir)) { // asked first: on an existing directory the JDK throws and catches twice
      Files.createDirectories(dir);
    }
    // Owner-only from its first byte, like everything else in the state directory (it names pids).
    try (var channel =
        FileChannel.open(
            file,
            Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND),
            OwnerOnly.fileAttribute(dir))) {
      var bytes = ByteBuffer.wrap((line.encode() + "\n").getBytes(StandardCharsets.UTF_8));
      while (bytes.hasRemaining()) {
        channel.write(bytes);
      }
    }
  }

  /**
   * Replaces the file with the live records alone (a temp file renamed over it: old or new, never a
   * mix).
   */
  private void rewrite() throws IOException {
    var text = new StringBuilder();
    live.values().forEach(r -> text.append(r.encode()).append('\n'));
    BootScopedFile.replace(
        file, dir.resolve(FILE + ".tmp"), text.toString().getBytes(StandardCharsets.UTF_8));
    ended = 0;
  }

  /**
   * Kills and removes the container a record names, if any: killing {@code podman run} leaves the
   * container running under its monitor. Says what happened, for the task's status.
   */
  private String stopContainer(RunLine.Started run) {
    if (run.container().isEmpty()) {
      return "";
    }
    var name = run.container().get();
    var args = new ArrayList<>(podman);
    args.addAll(List.of("rm", "--force", "--time", "0", name));
    try {
      var rm =
          new ProcessBuilder(args)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (!rm.waitFor(DEATH_WAIT_SECONDS, TimeUnit.SECONDS)) {
        rm.destroyForcibly();
        return "; podman rm of its container "
            + name
            + " did not finish in "
            + DEATH_WAIT_SECONDS
            + " s";
      }
      return rm.exitValue() == 0
          ? "; its container " + name + " was removed"
          : "; its container " + name + " was gone";
    } catch (IOException e) {
      return "; its container " + name + " could not be removed: " + e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "; interrupted while removing its container " + name;
    }
  }
}
