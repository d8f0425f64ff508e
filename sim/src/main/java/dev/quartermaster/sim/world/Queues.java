package dev.quartermaster.sim.world;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.queue.OverQuota;
import dev.quartermaster.api.queue.PriorityClass;
import dev.quartermaster.api.queue.PriorityClassSpec;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QueueOrdering;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.workload.Workload;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * The queues of a seed: the gang jobs are admitted through two team queues of one cohort, {@code
 * train} and {@code research}, whose quotas (drawn; in half the seeds) add up to less than the jobs
 * may ask for once scaled, so they borrow from each other and some wait; the other workloads go
 * through {@code default}. One job has the {@code urgent} priority class. Chaos changes a team's
 * quota now and then, and lowers one under what it uses (the store takes it: what is admitted then
 * only goes down), in some seeds asking for the excess back ({@code overQuota: Evict}).
 */
final class Queues {
  static final String COHORT = "lab";
  static final List<String> TEAMS = List.of("train", "research");
  static final String URGENT = "urgent";

  private Queues() {}

  /** Creates the seed's priority class and team queues. */
  static void create(ApiClient api, RandomGenerator random) {
    api.create(
        new PriorityClass(
            ObjectMeta.named(URGENT), new PriorityClassSpec(100, "goes first in its queue"), null));
    // Half the seeds give each team the whole fleet's 12 GPUs, so gangs contend for devices, not
    // quota (how the gang promises were first proven); the other half ration them.
    boolean rationed = random.nextBoolean();
    api.create(
        new Queue(
            ObjectMeta.named("train"), spec(rationed ? 4 + random.nextInt(5) : 12, random), null));
    api.create(
        new Queue(
            ObjectMeta.named("research"),
            spec(rationed ? 2 + random.nextInt(4) : 12, random),
            null));
  }

  static QueueSpec spec(int gpus, RandomGenerator random) {
    return new QueueSpec(
        Optional.of(COHORT),
        Map.of("gpu", gpus),
        random.nextBoolean() ? Map.of() : Map.of("gpu", 1 + random.nextInt(4)),
        random.nextBoolean() ? Map.of() : Map.of("gpu", random.nextInt(gpus + 1)),
        1 + random.nextInt(3),
        random.nextBoolean() ? QueueOrdering.StrictFIFO : QueueOrdering.BestEffortFIFO);
  }

  /**
   * {@code w} admitted through the team its job draws, the first job's at urgent priority; half the
   * jobs with a start timeout short enough to strike while the faults go on (20 to 90 s), the
   * others with the default.
   */
  static Workload assign(Workload w, int index, RandomGenerator random) {
    var team = TEAMS.get(random.nextInt(TEAMS.size()));
    var priority = index == 0 ? Optional.of(URGENT) : Optional.<String>empty();
    var spec = w.spec().inQueue(team, priority);
    if (random.nextBoolean()) {
      spec = spec.withStartTimeout(20 + random.nextInt(71));
    }
    return new Workload(w.metadata(), spec, w.status());
  }

  /**
   * An operator lowers the GPU quota of a team that uses some ({@code pick}: the one that uses the
   * most, or the other), so far that its cohort is over its quota by {@code cut} or more: what the
   * team borrows then is more than the other team lends (to no less than 0). Nothing when no team
   * uses any.
   */
  static Runnable shrinkQuota(ApiClient api, int pick, int cut) {
    return shrinkQuota(api, pick, cut, OverQuota.Wait);
  }

  /**
   * As {@link #shrinkQuota(ApiClient, int, int)}, the team's {@code overQuota} set to {@code
   * policy} in the same write: with {@link OverQuota#Evict} the operator asks for the excess back.
   */
  static Runnable shrinkQuota(ApiClient api, int pick, int cut, OverQuota policy) {
    return () -> {
      var ledger = api.get(dev.quartermaster.api.meta.Kinds.QUOTA_LEDGER, COHORT);
      if (ledger.isEmpty()) {
        return;
      }
      var specs = new java.util.TreeMap<String, QueueSpec>();
      for (var t : TEAMS) {
        api.get(dev.quartermaster.api.meta.Kinds.QUEUE, t).ifPresent(q -> specs.put(t, q.spec()));
      }
      var quota = dev.quartermaster.api.queue.CohortQuota.of(specs, ledger.get().spec().admitted());
      var byUse =
          TEAMS.stream()
              .filter(t -> quota.used(t, "gpu") > 0)
              .sorted(java.util.Comparator.comparingInt((String t) -> -quota.used(t, "gpu")))
              .toList();
      if (byUse.isEmpty()) {
        return;
      }
      var team = byUse.get(Math.min(pick, byUse.size() - 1));
      long used = quota.used(team, "gpu");
      long othersLend = quota.lendable("gpu") - quota.lendable(team, "gpu");
      long othersBorrow = quota.borrowed("gpu") - quota.borrowed(team, "gpu");
      long gpus = Math.min(used - 1, used + othersBorrow - othersLend - cut);
      setGpus(api, team, (int) Math.max(0, gpus), Optional.of(policy));
    };
  }

  /** An operator changes a team's GPU quota (under what it uses, too: the store takes it). */
  static Runnable changeQuota(ApiClient api, RandomGenerator random) {
    var team = TEAMS.get(random.nextInt(TEAMS.size()));
    int gpus = 1 + random.nextInt(8);
    return () -> setGpus(api, team, gpus, Optional.empty());
  }

  /**
   * Team {@code team}'s GPU quota set to {@code gpus}, its lending limit at most that, and its
   * {@code overQuota} to {@code policy} if given (else kept).
   */
  private static void setGpus(ApiClient api, String team, int gpus, Optional<OverQuota> policy) {
    var q = api.get(dev.quartermaster.api.meta.Kinds.QUEUE, team).orElseThrow();
    var quota = new HashMap<>(q.spec().quota());
    quota.put("gpu", gpus);
    var next =
        new QueueSpec(
            q.spec().cohort(),
            quota,
            q.spec().borrowingLimit(),
            q.spec().lendingLimit().entrySet().stream()
                .collect(
                    java.util.stream.Collectors.toMap(
                        Map.Entry::getKey, e -> Math.min(e.getValue(), gpus))),
            q.spec().weight(),
            q.spec().ordering(),
            policy.orElse(q.spec().overQuota()));
    api.update(new Queue(q.metadata(), next, q.status()));
  }
}
