package dev.quartermaster.agent.effects;

import dev.quartermaster.api.node.DomainDaemon;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
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
    }
  }

  @Override
  public synchronized void stop(String domain) {
    if (running.remove(domain)) {
      log.add("stop " + domain);
    }
  }

  /** Every running helper is ready at once: the simulation has no daemon start-up to wait for. */
  @Override
  public synchronized List<DomainDaemon> daemons(Set<String> wanted, Instant now) {
    return new TreeSet<>(wanted).stream().map(d -> running.contains(d) ? new DomainDaemon(d, DomainDaemon.DaemonState.Ready,
        java.util.Optional.empty(), 0, "", java.util.Optional.empty()) : new DomainDaemon(d, DomainDaemon.DaemonState.Restarting,
        java.util.Optional.empty(), 0, "not running", java.util.Optional.empty())).toList();
  }

  /** The helper of {@code domain} dies (as under {@code kill -9}): not running, and not stopped on purpose. */
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
