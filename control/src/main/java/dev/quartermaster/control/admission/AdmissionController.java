package dev.quartermaster.control.admission;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.queue.QueueStatus;
import dev.quartermaster.api.queue.QuotaLedger;
import dev.quartermaster.api.queue.QuotaLedgerSpec;
import dev.quartermaster.api.queue.QuotaLedgerStatus;
import dev.quartermaster.api.workload.JobEnd;
import dev.quartermaster.api.workload.TaskNames;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.admission.policy.AdmissionPolicy;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.cluster.StaleWrites;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.queue.Result;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admits workloads against their queues' quotas, one cohort per key: each pass decides the whole
 * cohort ({@link AdmissionCycle}) and writes it as one ledger write, which the store judges against
 * the cohort's quota (Q1) in the same transaction. A lost race (another admitter, a quota change)
 * is a 409, and the pass runs again on the newer ledger. Tasks exist only for admitted workloads:
 * the workload controller creates none before (see {@link Admissions}).
 */
public final class AdmissionController {
  private static final Logger LOG = LoggerFactory.getLogger(AdmissionController.class);

  /** Cohorts decided at once. */
  static final int WORKERS = 4;

  /**
   * The revision that fenced the earlier leader's writes, once this one leads; 0 for a controller
   * run on its own (tests, benches), which has no earlier leader.
   */
  private volatile long termFence;

  private final Env env;
  private final ApiClient api;
  private final Informers informers;
  private final AdmissionEvents said;
  private final AdmissionPolicy policy;
  private final ControlLoop loop;

  /** The revision of our last ledger write per cohort: the cache must reach it before we decide. */
  private final Map<String, Long> written = new ConcurrentHashMap<>();

  private final SettledWrites settled = new SettledWrites();

  private final CohortChanges changes;

  /** Passes that decided a whole cohort (the others only marked starts). */
  private final AtomicLong wholeDecisions = new AtomicLong();

  private final StartTimeouts timeouts;
  private final Requeues requeues;
  private final Requeueing requeueing;
  private final LedgerRoom room;

  /** The workloads told that their cohort's ledger is full, until they are admitted. */
  private final java.util.Set<String> toldFull = ConcurrentHashMap.newKeySet();

  public AdmissionController(Env env, ApiClient api, Informers informers, EventRecorder events) {
    this(env, api, informers, events, Requeueing.DEFAULT);
  }

  public AdmissionController(
      Env env, ApiClient api, Informers informers, EventRecorder events, Requeueing requeueing) {
    this(env, api, informers, events, requeueing, AdmissionPolicy.DEFAULT);
  }

  /** As above, deciding by {@code policy}. */
  public AdmissionController(
      Env env,
      ApiClient api,
      Informers informers,
      EventRecorder events,
      Requeueing requeueing,
      AdmissionPolicy policy) {
    this(env, api, informers, events, requeueing, policy, new LedgerRoom(LedgerRoom.STORE_BYTES));
  }

  /** As above, a cohort's ledger growing no larger than {@code room} (this controller's own). */
  public AdmissionController(
      Env env,
      ApiClient api,
      Informers informers,
      EventRecorder events,
      Requeueing requeueing,
      AdmissionPolicy policy,
      LedgerRoom room) {
    this.env = env;
    this.room = room;
    this.requeueing = requeueing;
    this.api = api;
    this.informers = informers;
    this.said = new AdmissionEvents(events);
    this.policy = policy;
    this.timeouts = new StartTimeouts(env);
    this.requeues = new Requeues(env);
    this.changes = new CohortChanges(env, requeueing.wholeOnChange());
    // A key is a cohort, and a cohort is never decided by two workers at once (the work queue's
    // rule), so several workers keep one cohort's long decision from holding up the others.
    this.loop = new ControlLoop("admission", env, WORKERS, StaleWrites.requeued(this::sync));
    AdmissionTriggers.register(informers, loop, settled, changes);
  }

  public ControlLoop loop() {
    return loop;
  }

  /**
   * How many passes decided a whole cohort: the others found it unchanged and only marked starts
   * ({@link CohortChanges}).
   */
  public long wholeDecisions() {
    return wholeDecisions.get();
  }

  /** As {@link #startLeading()}, leading from {@code fenceRevision} on. */
  public void startLeading(long fenceRevision) {
    termFence = fenceRevision;
    startLeading();
  }

  /** On taking the lead: the {@code default} queue exists, and every cohort is decided again. */
  public void startLeading() {
    settled.clear();
    changes.clear();
    if (informers.queues().cache().get(Queue.DEFAULT).isEmpty()) {
      try {
        api.create(new Queue(ObjectMeta.named(Queue.DEFAULT), QueueSpec.UNLIMITED, null));
      } catch (ApiException e) {
        if (!e.is(Reason.AlreadyExists)) {
          LOG.warn("could not create the default queue: {}", e.getMessage());
        }
      }
    }
    informers.queues().cache().list().forEach(q -> loop.enqueue(q.cohort()));
    informers.quotaLedgers().cache().keys().forEach(loop::enqueue);
  }

  /** Group → the highest ordinal of {@code w}'s unfinished tasks + 1, as the cache shows them. */
  private static Map<String, Integer> taken(Workload w, TaskView tasksOf) {
    var out = new HashMap<String, Integer>();
    for (var g : w.spec().groups()) {
      for (var t : tasksOf.of(w, g.name())) {
        if (t.status().phase().isFinished()
            || !t.metadata().owner().map(o -> o.uid().equals(w.metadata().uid())).orElse(false)) {
          continue;
        }
        // A name not of the slot scheme keeps its workload's admission whole.
        int ordinal =
            TaskNames.ordinal(w.metadata().name(), g.name(), t.metadata().name())
                .orElse(Integer.MAX_VALUE - 1);
        out.merge(g.name(), ordinal + 1, Math::max);
      }
    }
    return out;
  }

  /**
   * The tasks one decision reads: the cache's, but while it has not reached the revision that
   * fenced the earlier leader, each workload's read live once (what that leader made last may be
   * missing from the cache, and a workload whose tasks it does not show is judged finished: seed
   * 1550, scaled to 0 and released while both its workers ran).
   */
  private TaskView taskView() {
    return informers.tasks().syncedRevision() >= termFence
        ? TaskView.cached(informers)
        : TaskView.live(api);
  }

  /**
   * Whether {@code w}, evicted in the ledger as stored ({@code was}, at revision {@code storedAt}),
   * has no task left. An eviction decided in this very pass is released no sooner than the next
   * (seed 347: evicted and released in one write while its new task was not in the cache yet), and
   * the tasks are read live unless the cache has reached the eviction's write: a task made before
   * it must not be missed.
   */
  private boolean stoppedSince(Admitted was, Workload w, TaskView tasks, long storedAt) {
    if (was == null || !was.evicting()) {
      return false;
    }
    return !WorkloadFacts.hasTasks(
        w, informers.tasks().syncedRevision() >= storedAt ? tasks : TaskView.live(api));
  }

  private Result sync(String cohort) {
    var ledger = informers.quotaLedgers().cache().get(cohort);
    var ours = written.get(cohort);
    if (ours != null && ledger.map(l -> l.metadata().revision()).orElse(0L) < ours) {
      // Our write's event brings us back once the cache has it: no longer settled, and if the
      // event came while we looked, we come back ourselves.
      settled.waitedFor(cohort);
      if (informers.quotaLedgers().cache().get(cohort).map(l -> l.metadata().revision()).orElse(0L)
          >= ours) {
        loop.enqueue(cohort);
      }
      return Result.done();
    }
    var pass = changes.begin(cohort);
    if (pass.onlyMarks() && ledger.isPresent()) {
      var marked = markStarts(ledger.get(), pass.recheck());
      if (marked.isPresent()) {
        return marked.get();
      }
    }
    var queues = informers.queues().cache().byIndex(Informers.BY_COHORT, cohort);
    if (queues.isEmpty() && ledger.isEmpty()) {
      written.remove(cohort);
      changes.forget(cohort);
      return Result.done();
    }
    var workloads = new LinkedHashMap<String, Workload>();
    for (var q : queues) {
      informers
          .workloads()
          .cache()
          .byIndex(Informers.BY_QUEUE, q.metadata().name())
          .forEach(w -> workloads.put(w.metadata().name(), w));
    }
    ledger.ifPresent(
        l ->
            l.spec()
                .admitted()
                .keySet()
                .forEach(
                    n -> informers.workloads().cache().get(n).ifPresent(w -> workloads.put(n, w))));
    var stored =
        ledger.map(QuotaLedger::spec).orElse(dev.quartermaster.api.queue.QuotaLedgerSpec.EMPTY);
    var queueSpecs = new HashMap<String, dev.quartermaster.api.queue.QueueSpec>();
    queues.forEach(q -> queueSpecs.put(q.metadata().name(), q.spec()));
    var tasks = taskView();
    wholeDecisions.incrementAndGet();
    // Started entries marked, those past their start timeout evicted: decided on as evictions.
    var look =
        requeueing.startTimeouts()
            ? timeouts.look(cohort, stored.admitted(), workloads, queueSpecs, tasks::counts)
            : new StartTimeouts.Look(stored.admitted(), Map.of(), Optional.empty());
    // A queue set to overQuota: Evict that uses more than it may hold gives the excess back.
    var overQuota =
        requeueing.overQuota()
            ? OverQuotas.choose(queueSpecs, look.admitted(), policy.victims())
            : List.<OverQuotas.Victim>of();
    var seen = stored.withAdmitted(OverQuotas.evicted(look.admitted(), overQuota, env.now()));
    var waiting =
        requeueing.backoff()
            ? requeues.waiting(stored.requeued(), workloads)
            : new Requeues.Waiting(java.util.Set.of(), Optional.empty());
    var priorities = new HashMap<String, Integer>();
    informers
        .priorityClasses()
        .cache()
        .list()
        .forEach(p -> priorities.put(p.metadata().name(), p.spec().value()));
    // A scaled-down workload's admission shrinks as its surplus tasks go; an evicted workload's
    // entry goes once none of its tasks is left (the workload controller deletes them all,
    // finished ones too, so that it starts again whole).
    var existing = new HashMap<String, Map<String, Integer>>();
    var stopped = new java.util.HashSet<String>();
    long storedAt = ledger.map(l -> l.metadata().revision()).orElse(0L);
    seen.admitted()
        .forEach(
            (n, a) -> {
              var w = workloads.get(n);
              if (w == null) {
                return;
              }
              if (a.evicting() && stoppedSince(stored.admitted().get(n), w, tasks, storedAt)) {
                stopped.add(n);
              } else if (!a.evicting() && CarryOver.shrinking(w, a)) {
                existing.put(n, taken(w, tasks));
              }
            });
    var finished = new java.util.HashSet<String>();
    for (var w : workloads.values()) {
      var entry = Optional.ofNullable(seen.admitted().get(w.metadata().name()));
      if (JobEnd.reachedByCounts(w, group -> tasks.counts(w, group))
          && (!entry.map(Admitted::evicting).orElse(false) || WorkloadFacts.saidComplete(w))) {
        finished.add(w.metadata().name());
      }
    }
    java.util.function.Function<java.util.Set<String>, AdmissionCycle.Plan> decide =
        heldBack ->
            AdmissionCycle.decide(
                CohortSnapshot.of(
                    queues,
                    seen,
                    new ArrayList<>(workloads.values()),
                    priorities,
                    new WorkloadFacts(existing, finished, stopped, heldBack),
                    domain ->
                        informers
                            .computeDomains()
                            .cache()
                            .get(domain)
                            .map(d -> d.spec().channelsPerTask())
                            .orElse(1),
                    dev.quartermaster.api.device.mig.MigCharge.of(
                        informers.deviceClasses().cache().list()),
                    env.now()),
                policy);
    var plan = decide.apply(waiting.backingOff());
    var spec = withRequeued(plan, seen, workloads, finished);
    if (!plan.admitted().isEmpty() && !room.fits(cohort, spec)) {
      // The ledger would be larger than a store write takes: admit only as many as fit.
      var newcomers = new java.util.HashSet<>(workloads.keySet());
      newcomers.removeAll(seen.admitted().keySet());
      long bytes = room.size(cohort, spec);
      var full = plan.admitted();
      plan =
          room.mostThatFit(
              cohort,
              full,
              newcomers,
              waiting.backingOff(),
              decide,
              p -> withRequeued(p, seen, workloads, finished));
      spec = withRequeued(plan, seen, workloads, finished);
      for (var name : full) {
        if (!plan.admitted().contains(name) && toldFull.add(name)) {
          said.ledgerFull(workloads.get(name), cohort, bytes, room.bytes(), seen.admitted().size());
        }
      }
    }
    var requeued = spec.requeued();
    if (!spec.equals(stored)) {
      var next =
          ledger.isPresent()
              ? api.update(ledger.get().withSpec(spec))
              : api.create(
                  new QuotaLedger(ObjectMeta.named(cohort), spec, QuotaLedgerStatus.EMPTY));
      written.put(cohort, next.metadata().revision());
      settled.wrote(
          cohort, next.metadata().revision(), onlyMarksStarted(look, overQuota, stored, spec));
      look.timedOut().forEach((name, missing) -> said.timedOut(workloads.get(name), missing));
      overQuota.forEach(v -> said.overQuota(workloads.get(v.name()), v));
      requeued.forEach(
          (name, r) -> {
            if (!r.equals(stored.requeued().get(name))) {
              said.requeued(workloads.get(name), r);
            }
          });
      for (var name : plan.admitted()) {
        toldFull.remove(name);
        said.admitted(workloads.get(name), plan.ledger().admitted().get(name), cohort);
      }
      for (var v : plan.evicted()) {
        said.evicted(workloads, v);
      }
      if (!plan.released().isEmpty()) {
        LOG.info("cohort {}: released {}", cohort, plan.released());
      }
    }
    for (var q : queues) {
      var status = plan.statuses().getOrDefault(q.metadata().name(), QueueStatus.EMPTY);
      if (!status.equals(q.status())) {
        api.updateStatus(q.withStatus(status));
      }
    }
    var due = earliest(look.recheck(), waiting.recheck());
    changes.decided(pass, due);
    return due.map(Result::requeueAfter).orElse(Result.done());
  }

  /**
   * A pass over a cohort unchanged since its last whole decision ({@link CohortChanges}): the
   * entries whose workloads started since are marked, in one write of the ledger, and nothing else
   * is decided. Empty when a start timeout has come due meanwhile: that is the whole decision's.
   * The whole decision's recheck stays due when it was (a start's delayed pass took its place in
   * the queue).
   */
  private Optional<Result> markStarts(QuotaLedger ledger, Optional<Duration> recheck) {
    if (!requeueing.startTimeouts()) {
      return Optional.of(recheck.map(Result::requeueAfter).orElse(Result.done()));
    }
    var cohort = ledger.metadata().name();
    var stored = ledger.spec();
    var workloads = new HashMap<String, Workload>();
    stored
        .admitted()
        .forEach(
            (n, a) -> {
              if (!a.started() && !a.evicting()) {
                informers.workloads().cache().get(n).ifPresent(w -> workloads.put(n, w));
              }
            });
    var queueSpecs = new HashMap<String, QueueSpec>();
    informers
        .queues()
        .cache()
        .byIndex(Informers.BY_COHORT, cohort)
        .forEach(q -> queueSpecs.put(q.metadata().name(), q.spec()));
    var tasks = taskView();
    var look = timeouts.look(cohort, stored.admitted(), workloads, queueSpecs, tasks::counts);
    if (!look.timedOut().isEmpty()) {
      return Optional.empty();
    }
    if (!look.admitted().equals(stored.admitted())) {
      var next = api.update(ledger.withSpec(stored.withAdmitted(look.admitted())));
      written.put(cohort, next.metadata().revision());
      settled.wrote(cohort, next.metadata().revision(), true);
    }
    return Optional.of(
        earliest(recheck, look.recheck()).map(Result::requeueAfter).orElse(Result.done()));
  }

  /** The sooner of two rechecks; empty when neither is due. */
  private static Optional<Duration> earliest(Optional<Duration> a, Optional<Duration> b) {
    if (a.isEmpty()) {
      return b;
    }
    return b.filter(d -> d.compareTo(a.get()) < 0).or(() -> a);
  }

  /** Whether the ledger written differs from the one read only by admissions marked started. */
  private static boolean onlyMarksStarted(
      StartTimeouts.Look look,
      List<OverQuotas.Victim> overQuota,
      QuotaLedgerSpec stored,
      QuotaLedgerSpec spec) {
    return look.timedOut().isEmpty()
        && overQuota.isEmpty()
        && spec.equals(stored.withAdmitted(look.admitted()));
  }

  /** The plan's ledger with the requeue records its releases and evictions leave. */
  private QuotaLedgerSpec withRequeued(
      AdmissionCycle.Plan plan,
      QuotaLedgerSpec seen,
      Map<String, Workload> workloads,
      java.util.Set<String> finished) {
    return plan.ledger()
        .withRequeued(
            requeueing.backoff()
                ? requeues.next(seen, plan.ledger(), plan.released(), workloads, finished)
                : Map.of());
  }
}
