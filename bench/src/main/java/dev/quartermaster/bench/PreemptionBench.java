package dev.quartermaster.bench;

import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.queue.PriorityClass;
import dev.quartermaster.api.queue.PriorityClassSpec;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QueueOrdering;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.allocator.Packing;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * One preemption wave (issue 33): a cohort of two queues on 64 nodes × 8 GPUs, research (64 GPUs of
 * quota) running 32 backfill gangs of 2 × 8 GPUs on all 512, 448 of them borrowed from production;
 * then production's urgent gang of 64 members × 4 GPUs (256, within its quota) is applied. Timed
 * from that apply until all 64 members are placed: the admission controller chooses its victims
 * (whole gangs), the workload controller deletes their tasks, their quota comes back, the urgent
 * gang is admitted and placed in one decision. The real control plane over the real store, no
 * agents (placed = Scheduled; a victim's task stops at once, so grace periods are excluded).
 */
final class PreemptionBench implements Bench.Benchmark {
  private static final int NODES = 64;
  private static final int GPUS = 8;
  private static final int BACKFILL = 32;
  private static final int MEMBERS = 64;
  private static final Predicate<Task> PLACED = t -> t.status().phase() == TaskPhase.Scheduled;

  @Override
  public void run(Path dir, double raw, Report report) throws Exception {
    report.heading(
        "preemption wave: a gang of "
            + MEMBERS
            + " x 4 GPUs reclaims a full cohort ("
            + NODES
            + " nodes x "
            + GPUS
            + " GPUs); control plane, no agents (placed = Scheduled)");
    try (var plane = FleetPlane.start(dir.resolve("preemption"), NODES, GPUS, Packing.BEST_FIT)) {
      var api = plane.api();
      api.create(
          new PriorityClass(
              ObjectMeta.named("backfill"), new PriorityClassSpec(-10, "gives way"), null));
      api.create(
          new PriorityClass(ObjectMeta.named("urgent"), new PriorityClassSpec(1000, "now"), null));
      api.create(queue("research", 64));
      api.create(queue("production", NODES * GPUS - 64));
      long from = api.list(Kinds.TASK).revision();
      try (var backfill = Arrivals.watch(api, Kinds.TASK, from, BACKFILL * 2, PLACED)) {
        ControlPlaneBench.parallel(
            BACKFILL,
            i -> api.create(inQueue(Workloads.gang("bf-" + i, 2, 8), "research", "backfill")));
        long left = backfill.await(Duration.ofMinutes(5));
        if (left > 0) {
          report.line("backfill", "INCOMPLETE: " + left + " task(s) not placed");
          return;
        }
      }
      from = api.list(Kinds.TASK).revision();
      try (var urgent =
          Arrivals.watch(
              api,
              Kinds.TASK,
              from,
              MEMBERS,
              t -> PLACED.test(t) && t.metadata().name().startsWith("urgent-"))) {
        var clock = Stopwatch.start();
        long cpu = CpuTime.nanos();
        api.create(inQueue(Workloads.gang("urgent", MEMBERS, 4), "production", "urgent"));
        long left = urgent.await(Duration.ofMinutes(5));
        double seconds = clock.seconds();
        long used = CpuTime.nanos() - cpu;
        long victims =
            api.list(Kinds.QUOTA_LEDGER).items().stream()
                .flatMap(l -> l.spec().admitted().entrySet().stream())
                .filter(e -> e.getKey().equals("urgent"))
                .mapToLong(e -> e.getValue().preempted().size())
                .sum();
        report.line(
            "apply to all " + MEMBERS + " members placed" + (left > 0 ? " (INCOMPLETE)" : ""),
            String.format("%.2f s", seconds));
        report.line(
            "  victims (whole backfill gangs of 2 x 8 GPUs)",
            victims + " of " + BACKFILL + " (256 GPUs needed: 16 is the fewest)");
        report.line("  CPU (whole process)", String.format("%.0f ms", used / 1e6));
      }
    }
  }

  private static Queue queue(String name, int gpus) {
    return new Queue(
        ObjectMeta.named(name),
        new QueueSpec(
            Optional.of("org"),
            Map.of("gpu", gpus),
            Map.of(),
            Map.of(),
            1,
            QueueOrdering.BestEffortFIFO),
        null);
  }

  private static Workload inQueue(Workload w, String queue, String priority) {
    return new Workload(w.metadata(), w.spec().inQueue(queue, Optional.of(priority)), null);
  }
}
