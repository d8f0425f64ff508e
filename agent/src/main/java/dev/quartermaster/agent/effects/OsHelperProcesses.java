package dev.quartermaster.agent.effects;

import dev.quartermaster.agent.checkpoint.BootId;
import dev.quartermaster.agent.domaind.DaemonAnswer;
import dev.quartermaster.agent.domaind.ReadinessProbe;
import dev.quartermaster.agent.runtime.ProcessTree;
import dev.quartermaster.api.node.DomainDaemon;
import dev.quartermaster.api.validation.Names;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Helpers as real OS processes: one per domain, started from a command template in which {@code
 * {domain}} is replaced by the domain name and {@code {socket}} by {@code <dir>/<domain>.sock},
 * where the daemon answers its readiness check ({@code qm domain-daemon}; {@link
 * dev.quartermaster.agent.domaind.ReadinessProbe}). A command without {@code {socket}} (the
 * default, {@code sleep infinity}) has no readiness check: running is ready. Each helper's pid and
 * exact start ({@link ProcessStart}: the clock tick of {@code /proc/<pid>/stat} and the boot's id)
 * are kept in {@code <dir>/<domain>.pid}, and its output goes to {@code <dir>/<domain>.log}. The
 * pid is the one this process's {@code /proc} shows: in the DaemonSet, which has {@code hostPID:
 * true}, the host's.
 *
 * <p>A helper outlives an agent restart (it is not killed with the agent), and the next agent
 * adopts it from its pid file when the process with that pid and start is still alive, so
 * restarting the agent never takes a helper away from a running workload (I2), and never adopts
 * another program that got the pid later. A helper whose start could not be read is never adopted.
 */
public final class OsHelperProcesses implements HelperProcesses {
  private static final Logger LOG = LoggerFactory.getLogger(OsHelperProcesses.class);
  public static final List<String> DEFAULT_COMMAND = List.of("sleep", "infinity");
  private static final Duration STOP_GRACE = Duration.ofSeconds(5);

  private final Path dir;
  private final List<String> command;
  private final Path proc;
  private final String bootId;
  private final Map<String, ProcessHandle> running = new HashMap<>();

  /** What each helper is called in logs ({@code compute domain cd-1}). */
  private final String what;

  /** The environment each helper gets beyond the agent's, by its name. */
  private final java.util.function.Function<String, Map<String, String>> environment;

  /**
   * Starts of each domain's helper since it was last stopped on purpose; more than one is a
   * restart.
   */
  private final Map<String, Integer> starts = new HashMap<>();

  /** The state each domain's daemon was last reported in, and since when. */
  private final Map<String, DomainDaemon> reported = new HashMap<>();

  /** Helpers recorded under {@code dir}, running {@code command}; adopts live ones at once. */
  public OsHelperProcesses(Path dir, List<String> command) throws IOException {
    this(dir, command, Path.of("/proc"), BootId.current());
  }

  /**
   * Helpers of another kind ({@code what}: {@code "MPS daemon of GPU"}), each started with {@code
   * environment} of its name added to the agent's.
   */
  public OsHelperProcesses(
      Path dir,
      List<String> command,
      String what,
      java.util.function.Function<String, Map<String, String>> environment)
      throws IOException {
    this(dir, command, Path.of("/proc"), BootId.current(), what, environment);
  }

  /**
   * As {@link #OsHelperProcesses(Path, List)}, reading starts from {@code proc} in boot {@code
   * bootId}.
   */
  OsHelperProcesses(Path dir, List<String> command, Path proc, String bootId) throws IOException {
    this(dir, command, proc, bootId, "compute domain", name -> Map.of());
  }

  private OsHelperProcesses(
      Path dir,
      List<String> command,
      Path proc,
      String bootId,
      String what,
      java.util.function.Function<String, Map<String, String>> environment)
      throws IOException {
    this.what = what;
    this.environment = environment;
    this.proc = proc;
    this.bootId = bootId;
    if (command.isEmpty()) {
      throw new IllegalArgumentException("helper command must not be empty");
    }
    this.dir = dir;
    this.command = List.copyOf(command);
    Files.createDirectories(dir);
    adopt();
  }

  @Override
  public synchronized Set<String> running() {
    running.values().removeIf(h -> !ProcessTree.running(h));
    return Set.copyOf(running.keySet());
  }

  @Override
  public synchronized void start(String domain) throws IOException {
    requireDomain(domain);
    var current = running.get(domain);
    if (current != null && ProcessTree.running(current)) {
      return;
    }
    var args = new ArrayList<String>();
    command.forEach(
        a ->
            args.add(
                a.replace("{domain}", domain).replace("{socket}", socketOf(domain).toString())));
    var log = dir.resolve(domain + ".log");
    var builder = new ProcessBuilder(args);
    builder.environment().putAll(environment.apply(domain));
    var process =
        builder
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
            .start();
    var handle = process.toHandle();
    var started = ProcessStart.of(proc, handle.pid(), bootId);
    if (started.isEmpty()) {
      LOG.warn(
          "helper for "
              + what
              + " {} (pid {}): its start cannot be read from {}; a restarted"
              + " plugin will not adopt it",
          domain,
          handle.pid(),
          proc);
    }
    Files.writeString(
        pidFile(domain),
        handle.pid() + " " + started.map(ProcessStart::toString).orElse("-") + "\n",
        StandardCharsets.UTF_8);
    running.put(domain, handle);
    starts.merge(domain, 1, Integer::sum);
    LOG.info(
        "started helper for " + what + " {}: pid {} ({})",
        domain,
        handle.pid(),
        String.join(" ", args));
  }

  @Override
  public synchronized void stop(String domain) throws IOException {
    requireDomain(domain);
    starts.remove(domain);
    reported.remove(domain);
    var handle = running.remove(domain);
    if (handle != null && ProcessTree.running(handle)) {
      handle.destroy();
      // An adopted helper is init's child: gone once a zombie, whenever init reaps it.
      var left = ProcessTree.awaitGone(List.of(handle), STOP_GRACE);
      if (Thread.currentThread().isInterrupted()) {
        throw new IOException("interrupted while stopping helper for " + domain);
      }
      if (!left.isEmpty()) {
        LOG.warn(
            "helper for " + what + " {} (pid {}) ignored SIGTERM for {}; killing it",
            domain,
            handle.pid(),
            STOP_GRACE);
        handle.destroyForcibly();
      }
      LOG.info("stopped helper for " + what + " {} (pid {})", domain, handle.pid());
    }
    Files.deleteIfExists(pidFile(domain));
  }

  /**
   * Stops every helper recorded under {@code dir} that still runs (when the whole node goes away).
   */
  public static void stopAll(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return;
    }
    var helpers = new OsHelperProcesses(dir, DEFAULT_COMMAND);
    for (var domain : helpers.running()) {
      helpers.stop(domain);
    }
  }

  @Override
  public synchronized List<DomainDaemon> daemons(Set<String> wanted, Instant now) {
    var out = new ArrayList<DomainDaemon>();
    starts.keySet().retainAll(wanted);
    reported.keySet().retainAll(wanted);
    for (var domain : new java.util.TreeSet<>(wanted)) {
      var handle = Optional.ofNullable(running.get(domain)).filter(ProcessTree::running);
      int restarts = Math.max(0, starts.getOrDefault(domain, 1) - 1);
      DomainDaemon.DaemonState state;
      var message = "";
      if (handle.isEmpty()) {
        state = DomainDaemon.DaemonState.Restarting;
        message = "the daemon exited; the agent starts it again";
      } else if (!usesSocket()) {
        state = DomainDaemon.DaemonState.Ready;
      } else {
        switch (ReadinessProbe.ask(socketOf(domain))) {
          case DaemonAnswer.Ready r -> state = DomainDaemon.DaemonState.Ready;
          case DaemonAnswer.Starting st -> {
            state =
                restarts > 0
                    ? DomainDaemon.DaemonState.Restarting
                    : DomainDaemon.DaemonState.Starting;
            message = "the daemon is starting";
          }
          case DaemonAnswer.Silent silent -> {
            state =
                restarts > 0
                    ? DomainDaemon.DaemonState.Restarting
                    : DomainDaemon.DaemonState.Starting;
            message = "no readiness answer: " + silent.reason();
          }
        }
      }
      var before = reported.get(domain);
      var since = before != null && before.state() == state ? before.since() : Optional.of(now);
      var daemon =
          new DomainDaemon(domain, state, handle.map(ProcessHandle::pid), restarts, message, since);
      reported.put(domain, daemon);
      out.add(daemon);
    }
    return out;
  }

  @Override
  public DaemonAnswer readiness(String domain) {
    Optional<ProcessHandle> handle;
    synchronized (this) {
      handle = Optional.ofNullable(running.get(domain)).filter(ProcessTree::running);
    }
    if (handle.isEmpty()) {
      return new DaemonAnswer.Silent("the daemon is not running");
    }
    // Outside the lock: the check may take its whole timeout, and must not hold up a start or stop.
    return usesSocket()
        ? ReadinessProbe.ask(socketOf(domain))
        : new DaemonAnswer.Ready(domain, handle.get().pid());
  }

  private boolean usesSocket() {
    return command.stream().anyMatch(a -> a.contains("{socket}"));
  }

  /** Where {@code domain}'s daemon answers its readiness check. */
  public Path socketOf(String domain) {
    return dir.resolve(domain + ".sock").toAbsolutePath();
  }

  private void adopt() throws IOException {
    try (var files = Files.list(dir)) {
      for (var file : files.filter(f -> f.getFileName().toString().endsWith(".pid")).toList()) {
        var name = file.getFileName().toString();
        var domain = name.substring(0, name.length() - ".pid".length());
        if (!Names.isDnsLabel(domain)) {
          continue;
        }
        var handle = readLive(file);
        if (handle.isPresent()) {
          running.put(domain, handle.get());
          LOG.info(
              "adopted running helper for " + what + " {}: pid {}", domain, handle.get().pid());
        } else {
          Files.deleteIfExists(file);
        }
      }
    }
  }

  /**
   * The process recorded in {@code file}, if that very process (same pid and start time) still
   * runs.
   */
  private Optional<ProcessHandle> readLive(Path file) throws IOException {
    var parts = Files.readString(file, StandardCharsets.UTF_8).trim().split(" ");
    if (parts.length != 2) {
      return Optional.empty();
    }
    long pid;
    try {
      pid = Long.parseLong(parts[0]);
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
    var recorded = ProcessStart.parse(parts[1]);
    return ProcessHandle.of(pid)
        .filter(ProcessTree::running)
        // The start guards against a recycled pid now belonging to another program; an unknown
        // start ("-") proves nothing, so it is never adopted.
        .filter(
            h ->
                recorded.isPresent()
                    ? recorded.equals(ProcessStart.of(proc, pid, bootId))
                    : isLegacyStart(parts[1], h));
  }

  /** A pid file of an older version: the start as an instant, from the JDK. */
  private static boolean isLegacyStart(String recorded, ProcessHandle h) {
    return !recorded.equals("-")
        && h.info().startInstant().map(Instant::toString).orElse("-").equals(recorded);
  }

  private Path pidFile(String domain) {
    return dir.resolve(domain + ".pid");
  }

  private static void requireDomain(String domain) {
    if (!Names.isDnsLabel(domain)) {
      throw new IllegalArgumentException(
          "compute domain '" + domain + "': " + Names.DNS_LABEL_RULE);
    }
  }
}
