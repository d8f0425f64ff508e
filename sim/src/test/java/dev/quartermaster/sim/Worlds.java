package dev.quartermaster.sim;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.meta.OwnerReference;
import dev.quartermaster.api.workload.ClaimTemplate;
import dev.quartermaster.api.workload.DeviceLossPolicy;
import dev.quartermaster.api.workload.SpecDecision;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskNames;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.api.workload.WorkloadStatus;
import dev.quartermaster.control.allocator.Allocator;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.cluster.Labels;
import dev.quartermaster.control.lifecycle.NodeLifecycle;
import dev.quartermaster.control.lifecycle.TaskScheduler;
import dev.quartermaster.control.workload.TaskController;
import dev.quartermaster.control.workload.WorkloadController;
import dev.quartermaster.control.workload.WorkloadOptions;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Every controller over one simulated cluster, without leader election. */
record Worlds(Informers informers, Allocator allocator, WorkloadController workloads) {
  static Worlds start(SimCluster c) {
    var inf = new Informers(c.env(), c.api());
    var allocator = new Allocator(c.env(), c.api(), inf);
    var wc =
        new WorkloadController(
            c.env(),
            c.api(),
            inf,
            WorkloadOptions.of(WorkloadController.DEFAULT_EXPECTATION_BOUND));
    var tasks = new TaskController(c.env(), c.api(), inf);
    tasks.startLeading(0); // the only controllers there are: no earlier leader's claims to wait for
    var loops =
        List.of(
            allocator.loop(),
            wc.loop(),
            tasks.loop(),
            new TaskScheduler(c.env(), c.api(), inf).loop(),
            new NodeLifecycle(c.env(), c.api(), inf, NodeLifecycle.DEFAULT_GRACE).loop());
    inf.start();
    loops.forEach(ControlLoop::start);
    return new Worlds(inf, allocator, wc);
  }

  static Workload gpuWorkload(String name, int replicas, String deviceClass, int gpus) {
    var template =
        new TaskTemplate(List.of("train"), Map.of(), "exec", Optional.empty(), List.of(), Map.of());
    var claim =
        new ClaimTemplate(
            "gpu",
            new ResourceClaimSpec(
                List.of(new DeviceRequest("gpu", deviceClass, gpus, List.of())), Optional.empty()));
    var group = new WorkerGroup("w", replicas, template, List.of(claim), null);
    return new Workload(
        ObjectMeta.named(name),
        new WorkloadSpec(List.of(group), Optional.empty()),
        WorkloadStatus.EMPTY);
  }

  /** Queue {@code name} in {@code cohort}, with a quota of {@code gpus} of class gpu. */
  static dev.quartermaster.api.queue.Queue gpuQueue(String name, String cohort, int gpus) {
    return new dev.quartermaster.api.queue.Queue(
        ObjectMeta.named(name),
        new dev.quartermaster.api.queue.QueueSpec(
            Optional.of(cohort),
            Map.of("gpu", gpus),
            Map.of(),
            Map.of(),
            1,
            dev.quartermaster.api.queue.QueueOrdering.BestEffortFIFO),
        null);
  }

  /**
   * Task {@code ordinal} of group {@code w} of {@code workload} as a workload controller makes it
   * (an earlier leader's, say), without finalizers.
   */
  static Task handMadeTask(Workload workload, int ordinal) {
    var labels =
        Map.of(
            Labels.WORKLOAD, workload.metadata().name(),
            Labels.GROUP, "w",
            Labels.ORDINAL, Integer.toString(ordinal),
            SpecDecision.CREATED_AT, Long.toString(workload.metadata().generation()));
    return new Task(
        ObjectMeta.named(TaskNames.task(workload.metadata().name(), "w", ordinal))
            .withLabels(labels)
            .withOwner(OwnerReference.of(workload)),
        new TaskSpec(
            Optional.empty(),
            List.of("train"),
            Map.of(),
            List.of(),
            List.of(),
            "noop",
            Optional.empty(),
            0,
            DeviceLossPolicy.Continue),
        TaskStatus.EMPTY);
  }
}
