package dev.quartermaster.sim.world;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import java.time.Duration;
import java.util.Random;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * Issue 30, seed 1, over the whole simulated cluster and many seeds: a compute domain is deleted
 * under its running job, and a worker is replaced (before or after the delete, by seed). The
 * replacement's claim, never allocated, must not hold the deleting domain: the replacement says why
 * it waits (the domain is being deleted); once the operator deletes the job, the domain's deletion
 * completes, the domain can be made again, and the job made again runs in it. Every change is
 * judged by {@link DomainPromises} as it commits.
 */
class DomainDeletionTest {
  private static final int SEEDS = 20;

  @Test
  void aDomainDeletedUnderItsJobNeverDeadlocksWhateverTheOrder() {
    int waited = 0;
    for (long seed = 1; seed <= SEEDS; seed++) {
      waited += run(seed) ? 1 : 0;
    }
    assertThat(waited).as("seeds whose replacement waited for the deleting domain").isPositive();
    System.out.println(
        "domain deleted under its running job: "
            + SEEDS
            + " seeds ("
            + waited
            + " with a replacement waiting for it), 0 violations, no deadlock");
  }

  /**
   * One seed; whether its replacement had to wait for the deleting domain (not allocated before the
   * delete).
   */
  private static boolean run(long seed) {
    var random = new Random(seed);
    var w = new WholeCluster(seed, 2, 4, 16, Variant.REAL);
    var promises = new DomainPromises();
    DomainJob.judgedBy(w, promises);
    w.api().create(DomainJob.domain());
    w.api().create(DomainJob.job());
    await(w, seed, "the job running", () -> running(w) == 2);

    boolean replaceFirst = random.nextBoolean();
    var worker = w.api().list(Kinds.TASK).items().get(random.nextInt(2)).metadata().name();
    if (replaceFirst) {
      SeedRun.tolerant(() -> w.api().delete(Kinds.TASK, worker));
      w.env().advance(Duration.ofMillis(random.nextInt(5_000)));
    }
    w.api().delete(Kinds.COMPUTE_DOMAIN, "nvlink");
    w.env().advance(Duration.ofMillis(random.nextInt(5_000)));
    if (!replaceFirst) {
      SeedRun.tolerant(() -> w.api().delete(Kinds.TASK, worker));
    }
    // A replacement allocated before the delete runs in the domain; one made after waits, and says
    // for
    // what. The domain waits only for the claims still running in it.
    await(
        w,
        seed,
        "the replacement running, or saying it waits for the deleting domain",
        () ->
            running(w) == 2
                || w.api().list(Kinds.TASK).items().stream()
                    .anyMatch(
                        t ->
                            t.status().phase() != TaskPhase.Running
                                && t.status().message().contains("is being deleted")));
    assertThat(w.api().get(Kinds.COMPUTE_DOMAIN, "nvlink"))
        .as("seed %d: the domain waits for its running claims", seed)
        .get()
        .matches(d -> d.metadata().isDeleting());
    boolean waited = running(w) < 2;

    SeedRun.tolerant(() -> w.api().delete(Kinds.WORKLOAD, "job"));
    await(
        w,
        seed,
        "the domain's deletion completing",
        () -> w.api().get(Kinds.COMPUTE_DOMAIN, "nvlink").isEmpty());
    await(w, seed, "the job's tasks gone", () -> w.api().list(Kinds.TASK).items().isEmpty());
    // The workload goes once its controller has seen its tasks gone: a step later, or several.
    await(w, seed, "the job gone", () -> w.api().get(Kinds.WORKLOAD, "job").isEmpty());
    w.api().create(DomainJob.domain());
    w.api().create(DomainJob.job());
    await(w, seed, "the job made again running in the new domain", () -> running(w) == 2);
    assertThat(promises.violations()).as("seed %d", seed).isEmpty();
    return waited;
  }

  private static long running(WholeCluster w) {
    return w.api().list(Kinds.TASK).items().stream()
        .map(Task::status)
        .filter(s -> s.phase() == TaskPhase.Running)
        .count();
  }

  private static void await(WholeCluster w, long seed, String what, BooleanSupplier done) {
    for (int i = 0; i < 1_200 && !done.getAsBoolean(); i++) {
      w.env().advance(Duration.ofMillis(100));
    }
    assertThat(done.getAsBoolean())
        .as(
            "seed %d: %s within two simulated minutes; tasks %s; domain %s",
            seed,
            what,
            w.api().list(Kinds.TASK).items().stream()
                .map(
                    t ->
                        t.metadata().name()
                            + "="
                            + t.status().phase()
                            + "/"
                            + t.status().reason()
                            + ": "
                            + t.status().message())
                .toList(),
            w.api()
                .get(Kinds.COMPUTE_DOMAIN, "nvlink")
                .map(d -> (d.metadata().isDeleting() ? "deleting " : "") + d.status())
                .orElse("none"))
        .isTrue();
  }
}
