package dev.quartermaster.agent.effects;

import dev.quartermaster.agent.domaind.DaemonAnswer;
import dev.quartermaster.api.node.DomainDaemon;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Helpers as a set in memory, with a log of starts and stops, and optional injected start failures:
 * for tests and the simulation.
 */
public final class InMemoryHelperProcesses implements HelperProcesses {
  private final TreeSet<String> running = new TreeSet<>();
  private final List<String> log = new ArrayList<>();
  private final Set<String> failingStarts = new TreeSet<>();

  /**
   * A stand-in pid per running helper, new at every start, so a restart shows as it does for real.
   */
  private final java.util.Map<String, Long> pids = new java.util.HashMap<>();

  private long nextPid = 1_000;

  /** Domains whose helper runs but does not say it is ready yet. */
  private final Set<String> starting = new TreeSet<>();

  @Override
  public synchronized Set<String> running() {
    return Set.copyOf(running);
  }

  @Override
  public synchronized void start(String domain) throws IOException {
    if (failingStarts.contains(domain)) {
      throw new IOException("injected: helper for " + domain + " failed to start");
    }
    if (running.add(domain)) {
      log.add("start " + domain);
      pids.put(domain, nextPid++);
    }
  }

  @Override
  public synchronized void stop(String domain) {
    if (running.remove(domain)) {
      log.add("stop " + domain);
    }
  }

  /** A running helper is ready at once, unless {@link #holdStarting} keeps it starting. */
  @Override
  public synchronized List<DomainDaemon> daemons(Set<String> wanted, Instant now) {
    return new TreeSet<>(wanted)
        .stream()
            .map(
                d ->
                    new DomainDaemon(
                        d,
                        state(d),
                        running.contains(d) ? Optional.of(pids.get(d)) : Optional.empty(),
                        0,
                        running.contains(d) ? "" : "not running",
                        Optional.empty()))
            .toList();
  }

  private DomainDaemon.DaemonState state(String domain) {
    if (!running.contains(domain)) {
      return DomainDaemon.DaemonState.Restarting;
    }
    return starting.contains(domain)
        ? DomainDaemon.DaemonState.Starting
        : DomainDaemon.DaemonState.Ready;
  }

  @Override
  public synchronized DaemonAnswer readiness(String domain) {
    return switch (state(domain)) {
      case Ready -> new DaemonAnswer.Ready(domain, pids.get(domain));
      case Starting -> new DaemonAnswer.Starting(domain, pids.get(domain));
      case Restarting -> new DaemonAnswer.Silent("the daemon is not running");
    };
  }

  /**
   * Keeps {@code domain}'s helper answering "starting" (or lets it be ready again), as a slow
   * daemon would.
   */
  public synchronized void holdStarting(String domain, boolean hold) {
    if (hold) {
      starting.add(domain);
    } else {
      starting.remove(domain);
    }
  }

  /**
   * The helper of {@code domain} dies (as under {@code kill -9}): not running, and not stopped on
   * purpose.
   */
  public synchronized void kill(String domain) {
    if (running.remove(domain)) {
      log.add("died " + domain);
    }
  }

  /** Makes starts of {@code domain}'s helper fail (or succeed again). */
  public synchronized void failStarts(String domain, boolean fail) {
    if (fail) {
      failingStarts.add(domain);
    } else {
      failingStarts.remove(domain);
    }
  }

  /** Every start and stop so far, in order. */
  public synchronized List<String> log() {
    return List.copyOf(log);
  }
}
