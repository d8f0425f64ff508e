package dev.quartermaster.cli.failover;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.WorkloadSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An operator's load while servers and etcd members die: the workload scaled between 1 and 8
 * replicas and stand-alone one-GPU claims created and deleted (at most 4 live), each through
 * whichever server answers. It remembers every write the cluster acknowledged: only those count. A
 * write whose answer was lost is tried again until the cluster says what became of it.
 */
final class Storm implements Runnable {
  static final int MAX_REPLICAS = 8;
  static final int MAX_CLAIMS = 4;

  private final ApiClient api;
  private final String workload;
  private final Random random;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final Set<String> liveClaims = new TreeSet<>();
  private final Set<String> deletedClaims = new TreeSet<>();
  private final List<String> log = new ArrayList<>();
  private int replicas;
  private int nextClaim;
  private long writes;
  private long longestWriteNanos;

  Storm(ApiClient api, String workload, int replicas, long seed) {
    this.api = api;
    this.workload = workload;
    this.replicas = replicas;
    this.random = new Random(seed);
  }

  /** A storm that goes on from where this one stopped: the same claims, replicas and names. */
  synchronized Storm next(long seed) {
    var next = new Storm(api, workload, replicas, seed);
    next.liveClaims.addAll(liveClaims);
    next.deletedClaims.addAll(deletedClaims);
    next.nextClaim = nextClaim;
    next.writes = writes;
    return next;
  }

  @Override
  public void run() {
    while (running.get()) {
      int op = random.nextInt(3);
      if (op == 0) {
        scale(1 + random.nextInt(MAX_REPLICAS));
      } else if (op == 1 && liveClaims.size() < MAX_CLAIMS) {
        create("standalone-" + nextClaim++);
      } else if (!liveClaims.isEmpty()) {
        delete(
            liveClaims.stream().skip(random.nextInt(liveClaims.size())).findFirst().orElseThrow());
      }
      pace(50 + random.nextInt(250));
    }
  }

  void stop() {
    running.set(false);
  }

  synchronized int replicas() {
    return replicas;
  }

  synchronized Set<String> liveClaims() {
    return Set.copyOf(liveClaims);
  }

  synchronized Set<String> deletedClaims() {
    return Set.copyOf(deletedClaims);
  }

  synchronized long writes() {
    return writes;
  }

  /**
   * The longest time from an operation's first try to the cluster's acknowledgement, retries
   * included.
   */
  synchronized double longestWriteSeconds() {
    return longestWriteNanos / 1e9;
  }

  private synchronized void acknowledged(long startedNanos) {
    writes++;
    longestWriteNanos = Math.max(longestWriteNanos, System.nanoTime() - startedNanos);
  }

  private void scale(int to) {
    long started = System.nanoTime();
    while (true) {
      try {
        var w = api.get(Kinds.WORKLOAD, workload).orElseThrow();
        var g = w.spec().groups().getFirst();
        if (g.replicas() != to) {
          var scaled =
              new WorkerGroup(
                  g.name(),
                  to,
                  g.template(),
                  g.claimTemplates(),
                  g.restartPolicy(),
                  g.volumeClaimTemplates(),
                  g.volumeRetention());
          api.update(w.withSpec(new WorkloadSpec(List.of(scaled), w.spec().computeDomain())));
        }
        synchronized (this) {
          replicas = to;
        }
        acknowledged(started);
        return;
      } catch (ApiException e) {
        retryable(e, "scale to " + to);
      }
    }
  }

  private void create(String name) {
    var claim =
        new ResourceClaim(
            ObjectMeta.named(name),
            new ResourceClaimSpec(
                List.of(new DeviceRequest("gpu", "gpu", 1, List.of())), Optional.empty()),
            ResourceClaimStatus.EMPTY);
    long started = System.nanoTime();
    while (true) {
      try {
        api.create(claim);
        break;
      } catch (ApiException e) {
        if (e.is(Reason.AlreadyExists)) {
          break; // an earlier try landed, its answer lost
        }
        retryable(e, "create " + name);
      }
    }
    synchronized (this) {
      liveClaims.add(name);
    }
    acknowledged(started);
  }

  private void delete(String name) {
    long started = System.nanoTime();
    while (true) {
      try {
        api.delete(Kinds.RESOURCE_CLAIM, name);
        break;
      } catch (ApiException e) {
        if (e.is(Reason.NotFound)) {
          break; // an earlier try landed
        }
        retryable(e, "delete " + name);
      }
    }
    synchronized (this) {
      liveClaims.remove(name);
      deletedClaims.add(name);
    }
    acknowledged(started);
  }

  private void retryable(ApiException e, String what) {
    if (!(e.is(Reason.Unavailable) || e.is(Reason.Conflict) || e.is(Reason.Internal))) {
      throw new AssertionError(what + ": " + e.getMessage(), e);
    }
    synchronized (this) {
      log.add(what + ": " + e.getMessage());
    }
    pace(100);
  }

  synchronized List<String> retries() {
    return List.copyOf(log);
  }

  /** The operator's pace between requests (not a wait for a condition). */
  private static void pace(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
