package dev.quartermaster.sim.world;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.control.cluster.Labels;
import dev.quartermaster.core.env.Env;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;

/**
 * The other half of the naive reserve-and-wait gang scheduler of issue 32 (with {@link
 * GangBlindApi}'s allocator, which reserves a gang's members one at a time as each fits): a gang
 * that holds devices for fewer than {@code minMember} members for {@link #TIMEOUT} gives them all
 * back — its members are deleted, and its workload makes them again (Kueue's "all-or-nothing with
 * ready pods", evict and requeue). Two gangs that each hold part of what both need wait on each
 * other until the timeout, and then race for the same devices again.
 */
final class PartialGangTimeout extends PeriodicHelper {
  /** Kueue's default {@code waitForPodsReady} timeout. */
  static final Duration TIMEOUT = Duration.ofMinutes(5);

  /** Per gang (workload uid / group), since when it has held devices for too few members. */
  private final Map<String, Instant> partialSince = new HashMap<>();

  private PartialGangTimeout(Env env, ApiClient api) {
    super(env, api, Duration.ofSeconds(5));
  }

  static AutoCloseable start(Env env, ApiClient api) {
    return new PartialGangTimeout(env, api).begin();
  }

  @Override
  void look() {
    var claims = api.list(Kinds.RESOURCE_CLAIM).items();
    var tasks = api.list(Kinds.TASK).items();
    for (var w : api.list(Kinds.WORKLOAD).items()) {
      for (var g : w.spec().groups()) {
        if (g.gang().isEmpty()) {
          continue;
        }
        var key = w.metadata().uid() + "/" + g.name();
        var members =
            tasks.stream()
                .filter(
                    t ->
                        t.metadata()
                                .owner()
                                .filter(o -> o.uid().equals(w.metadata().uid()))
                                .isPresent()
                            && g.name().equals(t.metadata().labels().get(Labels.GROUP))
                            && !t.metadata().isDeleting())
                .toList();
        var holding = new HashSet<String>();
        for (var c : claims) {
          if (c.status().allocation().isPresent()) {
            c.metadata().owner().ifPresent(o -> holding.add(o.uid()));
          }
        }
        long holders = members.stream().filter(t -> holding.contains(t.metadata().uid())).count();
        if (holders == 0 || holders >= g.gang().get().minMemberOf(g.replicas())) {
          partialSince.remove(key);
          continue;
        }
        var since = partialSince.computeIfAbsent(key, k -> env.now());
        if (Duration.between(since, env.now()).compareTo(TIMEOUT) >= 0) {
          partialSince.remove(key);
          for (Task t : members) {
            SeedRun.tolerant(() -> api.delete(Kinds.TASK, t.metadata().name()));
          }
        }
      }
    }
  }
}
