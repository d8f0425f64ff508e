package dev.quartermaster.sim.world;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * L4 writable leader: a running replica that holds the controllers' lease can write. It is never
 * "leading but unable to write" (its renewals late, its controllers on an ended term's token, its
 * writes fenced) for longer than {@link #BOUND} of virtual time while its process runs: a leader
 * paused past its renew deadline steps down or starts its controllers again under a new term once
 * it resumes, instead of keeping every other replica standing by while nothing is written.
 */
final class LeaderPromises {
  /** Two retry periods with jitter and the held work of a resumed pause, with room to spare. */
  static final Duration BOUND = Duration.ofSeconds(15);

  private final WholeCluster world;

  /** Per replica, when it was first seen leading but unable to write, in world nanos. */
  private final Map<String, Long> stuckSince = new HashMap<>();

  LeaderPromises(WholeCluster world) {
    this.world = world;
  }

  void check(List<String> out) {
    long now = world.env().nanoTime();
    for (var r : world.replicas()) {
      var readiness = r.plane().readiness();
      if (r.process().isPaused() || readiness.ready()) {
        stuckSince.remove(r.identity());
        continue;
      }
      long since = stuckSince.computeIfAbsent(r.identity(), k -> now);
      if (now - since > BOUND.toNanos()) {
        out.add(
            "L4: replica "
                + r.identity()
                + " has led without being able to write for "
                + Duration.ofNanos(now - since).toSeconds()
                + " s: "
                + readiness.message());
      }
    }
  }
}
