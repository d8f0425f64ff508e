package dev.quartermaster.control.events;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.core.env.Env;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes events not seen for {@link #TTL}, so the store holds recent history only, however long
 * the cluster runs. Runs on the leader, every {@link #EVERY}; an event repeated since it was listed
 * is updated by its recorder, so deleting it on a stale read loses at most that repetition's count
 * (its recorder then creates it again).
 */
public final class EventExpiry {
  public static final Duration TTL = Duration.ofHours(1);
  static final Duration EVERY = Duration.ofMinutes(1);
  private static final Logger LOG = LoggerFactory.getLogger(EventExpiry.class);

  private final Env env;
  private final ApiClient api;
  private final Duration ttl;
  private Optional<Env.Cancellable> next = Optional.empty();
  private long term;

  public EventExpiry(Env env, ApiClient api, Duration ttl) {
    this.env = env;
    this.api = api;
    this.ttl = ttl;
  }

  public synchronized void start() {
    term++;
    schedule(term, Duration.ZERO);
  }

  public synchronized void stop() {
    term++;
    next.ifPresent(Env.Cancellable::cancel);
    next = Optional.empty();
  }

  private synchronized void schedule(long forTerm, Duration delay) {
    if (forTerm == term) {
      next = Optional.of(env.schedule(delay, () -> run(forTerm)));
    }
  }

  private void run(long forTerm) {
    synchronized (this) {
      if (forTerm != term) {
        return;
      }
    }
    try {
      expireOnce();
    } catch (RuntimeException e) {
      LOG.debug("event expiry: {}", e.toString());
    }
    schedule(forTerm, EVERY);
  }

  /** Deletes every event last seen before now minus the TTL; returns how many. */
  public int expireOnce() {
    var cutoff = env.now().minus(ttl);
    int deleted = 0;
    for (var e : api.list(Kinds.EVENT).items()) {
      if (e.spec().lastSeen().isBefore(cutoff)) {
        try {
          api.delete(Kinds.EVENT, e.metadata().name());
          deleted++;
        } catch (ApiException gone) {
          // deleted by another, or the leadership moved: the next round sees
        }
      }
    }
    if (deleted > 0) {
      LOG.info("event=events_expired count={} ttl={}", deleted, ttl);
    }
    return deleted;
  }
}
