package dev.quartermaster.bench;

import dev.quartermaster.api.claim.ClaimConditions;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.control.allocator.Packing;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Issue 32 (c): fragmentation, through the real control plane (no agents), once with the
 * allocator's best fit and once with first fit ({@link Packing}), each on a fresh store. A seeded
 * stream of gangs of 1 to 64 members, each member of 1, 4 or 8 GPUs, arrives one at a time; each
 * waits until its gang is placed or says it does not fit. A gang that does not fit is withdrawn (it
 * held nothing); a placed one runs for a seeded number of later arrivals, then its workload is
 * deleted and its GPUs come back before the next arrival. Without departures the two packings fill
 * an empty fleet alike (both take the lowest-named, fullest nodes first); with them, first fit puts
 * small members into whole free nodes that best fit keeps for 8-GPU members.
 */
final class GangStream {
  private static final long SEED = Long.getLong("qm.bench.gangSeed", 32);
  private static final int ARRIVALS = Integer.getInteger("qm.bench.gangArrivals", 300);
  private static final int MAX_MEMBERS = 64;
  private static final int[] MEMBER_GPUS = {1, 4, 8};

  /**
   * A placed gang runs for 1 to this many later arrivals: about 100 gangs of about 140 GPUs would
   * run at once, nearly twice what 1,000 nodes of 8 hold, so the fleet stays full once filled.
   */
  private static final int MAX_LIFE = 200;

  private final int nodes;
  private final int gpus;

  GangStream(int nodes, int gpus) {
    this.nodes = nodes;
    this.gpus = gpus;
  }

  /** A gang of the stream: drawn whatever became of the ones before, so both packings get it. */
  private record Gang(String name, int members, int gpusEach, int life) {
    int gpus() {
      return members * gpusEach;
    }
  }

  /** How a packing did over the stream, and the fleet at its end. */
  private record Outcome(
      int placed,
      long gpusPlaced,
      int refused,
      int refusedThoughFree,
      int used,
      int stranded,
      int partlyUsed,
      int empty,
      double seconds) {}

  void run(Path dir, Report report) throws Exception {
    report.heading(
        "gangs (c): fragmentation; "
            + ARRIVALS
            + " gangs of 1-"
            + MAX_MEMBERS
            + " members of 1, 4 or 8 GPUs (seed "
            + SEED
            + ") arriving on "
            + nodes
            + " nodes x "
            + gpus
            + " GPUs, each placed one running 1-"
            + MAX_LIFE
            + " arrivals");
    report.text(
        "  through the control plane (no agents), each packing on a fresh store; one gang at a"
            + " time, placed or withdrawn; departures freed before the next arrival");
    var outcomes = new TreeMap<Packing, Outcome>();
    for (var packing : Packing.values()) {
      var o = stream(dir.resolve("c-" + packing.name().toLowerCase(Locale.ROOT)), packing);
      outcomes.put(packing, o);
      report.line(
          (packing == Packing.BEST_FIT ? "best fit (the allocator's)" : "first fit")
              + ": gangs placed; GPUs placed over the stream",
          String.format(Locale.ROOT, "%d; %d (%.0f s)", o.placed(), o.gpusPlaced(), o.seconds()));
      report.line(
          "  gangs that did not fit; of them, with as many GPUs free in the fleet",
          o.refused() + "; " + o.refusedThoughFree());
      report.line(
          "  at the end: GPUs used; stranded (free on partly used nodes)",
          String.format(
              Locale.ROOT,
              "%d (%.1f %%); %d on %d nodes (%d nodes empty)",
              o.used(),
              100.0 * o.used() / (nodes * gpus),
              o.stranded(),
              o.partlyUsed(),
              o.empty()));
    }
    var best = outcomes.get(Packing.BEST_FIT);
    var first = outcomes.get(Packing.FIRST_FIT);
    report.line(
        "  best fit / first fit: stranded GPUs; gangs refused with enough GPUs free",
        String.format(
            Locale.ROOT,
            "%d / %d; %d / %d",
            best.stranded(),
            first.stranded(),
            best.refusedThoughFree(),
            first.refusedThoughFree()));
  }

  private Outcome stream(Path dir, Packing packing) throws Exception {
    var random = new Random(SEED);
    try (var plane = FleetPlane.start(dir, nodes, gpus, packing);
        var usage = GpuUsage.watch(plane.api())) {
      var api = plane.api();
      var clock = Stopwatch.start();
      var decided = new ConcurrentHashMap<String, CompletableFuture<Boolean>>();
      var ending = new TreeMap<Integer, List<Gang>>();
      int capacity = nodes * gpus;
      int used = 0;
      int placed = 0;
      long gpusPlaced = 0;
      int refused = 0;
      int refusedThoughFree = 0;
      try (var watch =
          api.watch(
              Kinds.RESOURCE_CLAIM, api.list(Kinds.RESOURCE_CLAIM).revision(), decide(decided))) {
        for (int i = 0; i < ARRIVALS; i++) {
          var gang =
              new Gang(
                  "gang-" + i,
                  1 + random.nextInt(MAX_MEMBERS),
                  MEMBER_GPUS[random.nextInt(MEMBER_GPUS.length)],
                  1 + random.nextInt(MAX_LIFE));
          var done = ending.headMap(i, true);
          if (!done.isEmpty()) {
            for (var g : done.values().stream().flatMap(List::stream).toList()) {
              api.delete(Kinds.WORKLOAD, g.name());
              used -= g.gpus();
            }
            done.clear();
            if (!usage.awaitTotal(used)) {
              throw new IllegalStateException(
                  "departed gangs' GPUs not freed in 60 s: " + usage.total() + " held");
            }
          }
          var outcome = new CompletableFuture<Boolean>();
          decided.put(Workloads.claimOf(gang.name(), 0), outcome);
          api.create(Workloads.gang(gang.name(), gang.members(), gang.gpusEach()));
          if (outcome.get(120, TimeUnit.SECONDS)) {
            used += gang.gpus();
            placed++;
            gpusPlaced += gang.gpus();
            ending.computeIfAbsent(i + gang.life(), k -> new ArrayList<>()).add(gang);
          } else {
            refused++;
            if (gang.gpus() <= capacity - used) {
              refusedThoughFree++;
            }
            withdraw(api, gang.name());
          }
        }
      }
      if (!usage.awaitTotal(used)) {
        throw new IllegalStateException(
            "the records hold " + usage.total() + " GPUs, the placed gangs " + used);
      }
      int stranded = 0;
      int partly = 0;
      int empty = 0;
      for (int n = 0; n < nodes; n++) {
        int u = usage.on("node-" + n);
        if (u == 0) {
          empty++;
        } else if (u < gpus) {
          partly++;
          stranded += gpus - u;
        }
      }
      return new Outcome(
          placed,
          gpusPlaced,
          refused,
          refusedThoughFree,
          used,
          stranded,
          partly,
          empty,
          clock.seconds());
    }
  }

  /**
   * Deletes a gang that did not fit and waits until its workload is gone (its claims with it), so
   * that no later departure lets it in behind the stream's back.
   */
  private static void withdraw(ApiClient api, String name) throws InterruptedException {
    api.delete(Kinds.WORKLOAD, name);
    for (int waited = 0; api.get(Kinds.WORKLOAD, name).isPresent(); waited++) {
      if (waited > 12_000) {
        throw new IllegalStateException("withdrawn gang " + name + " not gone in 60 s");
      }
      Thread.sleep(5);
    }
  }

  /**
   * Completes a gang's future when its first member's claim is allocated (the gang is placed: all
   * its claims are, in one transaction) or says the gang does not fit now.
   */
  private static WatchHandler<ResourceClaim> decide(
      Map<String, CompletableFuture<Boolean>> decided) {
    return new WatchHandler<>() {
      @Override
      public void onEvent(WatchEvent<ResourceClaim> e) {
        var c = e.object();
        var outcome = decided.get(c.metadata().name());
        if (outcome == null) {
          return;
        }
        if (c.status().allocation().isPresent()) {
          outcome.complete(true);
        } else if (Condition.find(c.status().conditions(), ClaimConditions.ALLOCATED)
            .filter(x -> !x.isTrue() && x.reason().equals("WaitingForGang"))
            .isPresent()) {
          outcome.complete(false);
        }
      }

      @Override
      public void onGone(long compactedRevision) {}
    };
  }
}
