package dev.quartermaster.api.node;

import java.time.Instant;
import java.util.Optional;

/**
 * The state of one compute domain's daemon on a node, as its agent supervises it.
 *
 * @param domain the compute domain
 * @param state where the daemon is
 * @param pid its process, while there is one
 * @param restarts how often the agent restarted it after it died while wanted
 * @param message why it is not ready, or empty
 * @param since when it entered {@code state}
 */
public record DomainDaemon(
    String domain,
    DaemonState state,
    Optional<Long> pid,
    int restarts,
    String message,
    Optional<Instant> since) {
  public DomainDaemon {
    domain = domain == null ? "" : domain;
    state = state == null ? DaemonState.Starting : state;
    pid = pid == null ? Optional.empty() : pid;
    message = message == null ? "" : message;
    since = since == null ? Optional.empty() : since;
  }

  public boolean ready() {
    return state == DaemonState.Ready;
  }

  /** Where a domain daemon is in its life on a node. */
  public enum DaemonState {
    /** Started, not ready yet. */
    Starting,
    /** Says it is ready: channel claims of its domain may be prepared here. */
    Ready,
    /** Died (or lost readiness) while wanted; the agent is restarting it. */
    Restarting
  }
}
