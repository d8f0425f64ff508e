package dev.quartermaster.control;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.event.EventLog;
import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.api.event.EventType;
import dev.quartermaster.api.event.InvolvedObject;
import dev.quartermaster.control.admission.AdmissionController;
import dev.quartermaster.control.admission.AdmissionGate;
import dev.quartermaster.control.allocator.Allocator;
import dev.quartermaster.control.allocator.AllocatorKey;
import dev.quartermaster.control.allocator.AllocatorPolicy;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.deadline.DeadlineController;
import dev.quartermaster.control.deadline.TaskDeadlines;
import dev.quartermaster.control.domain.ComputeDomainController;
import dev.quartermaster.control.events.EventExpiry;
import dev.quartermaster.control.leader.FencedApiClient;
import dev.quartermaster.control.leader.LeaderElector;
import dev.quartermaster.control.leader.Term;
import dev.quartermaster.control.leader.WriteReadiness;
import dev.quartermaster.control.lifecycle.NodeLifecycle;
import dev.quartermaster.control.lifecycle.TaskScheduler;
import dev.quartermaster.control.volume.PluginConnector;
import dev.quartermaster.control.volume.VolumeController;
import dev.quartermaster.control.workload.TaskController;
import dev.quartermaster.control.workload.WorkloadController;
import dev.quartermaster.control.workload.WorkloadOptions;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.lease.LeaseSlot;
import dev.quartermaster.core.serial.KeyedSerializer;
import dev.quartermaster.core.serial.Serializer;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every controller, wired for production: shared informers (which run whether or not this instance
 * leads, so a new leader starts warm), one work queue and set of workers per controller, and leader
 * election. Controllers write through a {@link FencedApiClient}; their workers run only while this
 * instance leads. On becoming leader every cached object is re-enqueued, since the previous
 * leader's work is ours now.
 */
public final class ControlPlane implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ControlPlane.class);

  private final Informers informers;

  /** The allocator's: {@link #informers} unless it reads through a view of its own. */
  private final Informers allocatorInformers;

  private final LeaderElector elector;
  private final FencedApiClient fenced;
  private final Allocator allocator;
  private final WorkloadController workloads;
  private final AdmissionController admission;
  private final TaskController tasks;
  private final TaskScheduler scheduler;
  private final NodeLifecycle nodes;
  private final VolumeController volumes;
  private final ComputeDomainController domains;
  private final TaskDeadlines taskDeadlines;
  private final DeadlineController deadlines;
  private final List<ControlLoop> loops;
  private final EventLog events;
  private final EventRecorder controlPlaneEvents;
  private final EventExpiry expiry;

  private ControlPlane(
      ApiClient api,
      LeaseSlot leases,
      Env env,
      ControlPlaneOptions options,
      PluginConnector plugins,
      Serializer<String> volumeCalls) {
    this.elector =
        new LeaderElector(
            leases,
            env,
            options.identity(),
            options.leader(),
            options
                .leaderCallbacks()
                .apply(
                    new LeaderElector.Callbacks() {
                      @Override
                      public void startedLeading(Term term) {
                        lead(term);
                      }

                      @Override
                      public void stoppedLeading() {
                        follow();
                      }

                      @Override
                      public void termEnded(Term ended, Term next, Duration silent) {
                        follow();
                        lead(next);
                        controlPlaneEvents.record(
                            InvolvedObject.CONTROLLERS,
                            EventType.Warning,
                            "TermEnded",
                            options.identity()
                                + ": the term of epoch "
                                + ended.epoch()
                                + " ended after "
                                + silent.toMillis()
                                + " ms without a lease renewal (this process was paused, or its store did"
                                + " not answer); the controllers restarted under epoch "
                                + next.epoch());
                      }
                    }));
    this.fenced = new FencedApiClient(api, options.writeLeadership().apply(elector));
    this.informers = new Informers(env, api);
    this.events = new EventLog(fenced, env::now, env::schedule);
    this.controlPlaneEvents = events.recorder("leader-election");
    this.expiry = new EventExpiry(env, fenced, EventExpiry.TTL);
    this.allocatorInformers =
        options.allocatorView().map(v -> new Informers(env, v.apply(api))).orElse(informers);
    this.taskDeadlines = new TaskDeadlines(env);
    this.allocator =
        new Allocator(
            env,
            fenced,
            allocatorInformers,
            events.recorder("allocator"),
            new AllocatorPolicy(options.packing(), options.backfill(), options.sliceCheck()),
            taskDeadlines);
    this.deadlines =
        new DeadlineController(env, fenced, informers, taskDeadlines, events.recorder("deadlines"));
    this.workloads =
        new WorkloadController(
            env,
            fenced,
            informers,
            WorkloadOptions.of(options.expectationBound())
                .withEvents(events.recorder("workloads"))
                .withAdmission(new AdmissionGate.Ledger(informers))
                .withRecovery(options.gangRecovery()));
    this.admission =
        new AdmissionController(
            env, fenced, informers, events.recorder("admission"), options.requeueing());
    this.tasks = new TaskController(env, fenced, informers);
    this.scheduler = new TaskScheduler(env, fenced, informers, events.recorder("scheduler"));
    this.nodes =
        new NodeLifecycle(
            env, fenced, informers, options.heartbeatGrace(), events.recorder("node-lifecycle"));
    this.volumes = new VolumeController(env, fenced, informers, plugins, volumeCalls);
    this.domains = new ComputeDomainController(env, fenced, informers);
    this.loops =
        List.of(
            allocator.loop(),
            admission.loop(),
            workloads.loop(),
            tasks.loop(),
            scheduler.loop(),
            nodes.loop(),
            volumes.loop(),
            domains.loop(),
            deadlines.loop());
    // Before anything starts, so the first reconcile is counted too.
    loops.forEach(loop -> loop.observeWith(options.metrics()));
  }

  /**
   * Builds and starts the control plane with no way to reach CSI plugins (volumes stay Pending).
   */
  public static ControlPlane start(
      ApiClient api, LeaseSlot leases, Env env, ControlPlaneOptions options) {
    return start(api, leases, env, options, PluginConnector.NONE);
  }

  /**
   * Builds and starts the control plane: informers at once, controllers when elected.
   *
   * @param plugins how the volume controller reaches CSI plugins' controller services
   */
  public static ControlPlane start(
      ApiClient api,
      LeaseSlot leases,
      Env env,
      ControlPlaneOptions options,
      PluginConnector plugins) {
    return start(api, leases, env, options, plugins, new KeyedSerializer<>(env));
  }

  /**
   * As above, with the volume controller's serializer of destructive calls given (the simulation's
   * naive variants).
   */
  public static ControlPlane start(
      ApiClient api,
      LeaseSlot leases,
      Env env,
      ControlPlaneOptions options,
      PluginConnector plugins,
      Serializer<String> volumeCalls) {
    Objects.requireNonNull(api, "api");
    Objects.requireNonNull(leases, "leases");
    Objects.requireNonNull(env, "env");
    var plane = new ControlPlane(api, leases, env, options, plugins, volumeCalls);
    plane.informers.start();
    if (plane.allocatorInformers != plane.informers) {
      plane.allocatorInformers.start();
    }
    plane.elector.start();
    return plane;
  }

  private void lead(Term term) {
    LOG.info(
        "{}: controllers starting (epoch {}, writes fenced at revision {} of {}{})",
        elector.identity(),
        term.epoch(),
        term.fenceRevision(),
        term.fenceKey(),
        fenced.fencesInStore() ? "" : "; this client cannot fence in the store");
    fenced.beginTerm(term);
    tasks.startLeading(term.fenceRevision());
    workloads.startLeading(term.fenceRevision());
    long epoch = term.epoch();
    // Everything the last leader may have left half done.
    informers
        .tasks()
        .cache()
        .keys()
        .forEach(
            k -> {
              allocator.enqueue(AllocatorKey.task(k));
              tasks.loop().enqueue(k);
              scheduler.loop().enqueue(k);
            });
    informers.claims().cache().keys().forEach(k -> allocator.enqueue(AllocatorKey.claim(k)));
    informers
        .nodes()
        .cache()
        .keys()
        .forEach(
            k -> {
              allocator.enqueue(AllocatorKey.node(k));
              nodes.loop().enqueue(k);
            });
    informers.workloads().cache().keys().forEach(workloads.loop()::enqueue);
    admission.startLeading(term.fenceRevision());
    volumes.startLeading(epoch);
    informers.volumes().cache().keys().forEach(volumes.loop()::enqueue);
    informers.computeDomains().cache().keys().forEach(domains.loop()::enqueue);
    loops.forEach(ControlLoop::start);
    expiry.start();
  }

  private void follow() {
    LOG.info("{}: controllers stopping", elector.identity());
    loops.forEach(ControlLoop::stop);
    expiry.stop();
    volumes.stopLeading();
  }

  public boolean isLeader() {
    return elector.isLeader();
  }

  /** Whether the controllers can write now, and if not, why; reads no store. */
  public WriteReadiness readiness() {
    return WriteReadiness.judge(elector.standing(), fenced.term(), fenced.fencedThisTerm());
  }

  public Informers informers() {
    return informers;
  }

  public Allocator allocator() {
    return allocator;
  }

  public WorkloadController workloads() {
    return workloads;
  }

  /** Where the controllers' events wait to be written. */
  public EventLog events() {
    return events;
  }

  /** Every controller's loop: their queues, for metrics. */
  public List<ControlLoop> loops() {
    return loops;
  }

  /** Writes refused because this instance was not the leader. */
  public long refusedWrites() {
    return fenced.refused();
  }

  @Override
  public void close() {
    expiry.stop();
    elector.stop();
    loops.forEach(ControlLoop::stop);
    informers.stop();
    if (allocatorInformers != informers) {
      allocatorInformers.stop();
    }
  }
}
