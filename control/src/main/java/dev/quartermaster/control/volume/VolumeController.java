package dev.quartermaster.control.volume;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.api.volume.VolumeClaimEvent;
import dev.quartermaster.api.volume.VolumeClaimMachine;
import dev.quartermaster.api.volume.VolumeConditions;
import dev.quartermaster.api.volume.VolumePhase;
import dev.quartermaster.api.volume.VolumeStatus;
import dev.quartermaster.control.cluster.Conditions;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.cluster.NodeChange;
import dev.quartermaster.control.cluster.StaleWrites;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.informer.EventHandler;
import dev.quartermaster.core.queue.Result;
import dev.quartermaster.core.serial.KeyedSerializer;
import dev.quartermaster.core.serial.Serializer;
import dev.quartermaster.csi.plugin.Capability;
import dev.quartermaster.csi.plugin.CsiCall;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes volumes real (I5): creates each in its plugin, grants claims by access mode, and drives
 * every claim through {@link VolumeClaimMachine}, persisting each step in the volume's status
 * before the next call. Deleting a volume waits, behind {@link Volume#RELEASE_FINALIZER}, until no
 * claim is left, then DeleteVolume, then the finalizer goes.
 *
 * <p>Calls: at most one outstanding per volume (its reconcile starts one and returns; the call's
 * completion records an outcome and re-enqueues the volume, and the next reconcile persists it).
 * Destructive ones go through the per-plugin {@link Serializer} to the instance {@link
 * ControllerRoute} picks, so at most one is in flight per plugin, in submission order. When this
 * instance is deposed the serializer is closed, failing its waiters at once; it reopens when it
 * leads again. Retryable failures (ABORTED, UNAVAILABLE, DEADLINE_EXCEEDED) come back with the
 * queue's backoff; others set the {@code CallsSucceeding=False} condition naming the call, and are
 * tried again later.
 */
public final class VolumeController {
  private static final Logger LOG = LoggerFactory.getLogger(VolumeController.class);
  static final Duration RETRY_FAILED = Duration.ofSeconds(30);
  static final Duration NO_ROUTE_RECHECK = Duration.ofSeconds(10);
  static final Duration CACHE_WAIT = Duration.ofSeconds(2);

  private final Env env;
  private final ApiClient api;
  private final Informers informers;
  private final ControlLoop loop;
  private final PluginCalls calls;

  /**
   * The revision of our last write of each volume: the cache must reach it before we decide again.
   */
  private final Map<String, Long> written = new ConcurrentHashMap<>();

  /**
   * @param serializer destructive calls' per-plugin serializer ({@link KeyedSerializer}; tests pass
   *     naive ones)
   */
  public VolumeController(
      Env env,
      ApiClient api,
      Informers informers,
      PluginConnector connector,
      Serializer<String> serializer) {
    this.env = env;
    this.api = api;
    this.informers = informers;
    this.loop = new ControlLoop("volumes", env, 2, this::reconcile);
    this.calls = new PluginCalls(env, connector, serializer, loop);
    informers
        .volumes()
        .addHandler(EventHandler.onAnyChange(v -> loop.enqueue(v.metadata().name())));
    informers
        .tasks()
        .addHandler(
            EventHandler.onAnyChange(t -> t.spec().volumes().forEach(u -> loop.enqueue(u.name()))));
    // A node's state matters to the volumes on it (a node gone or fenced), its heartbeat not.
    java.util.function.Consumer<Node> nodeChanged =
        n ->
            informers
                .volumes()
                .cache()
                .list()
                .forEach(
                    v -> {
                      if (v.status().claims().stream()
                              .anyMatch(c -> c.node().equals(n.metadata().name()))
                          || v.status().externalId().isEmpty()
                          || v.metadata().isDeleting()) {
                        loop.enqueue(v.metadata().name());
                      }
                    });
    informers
        .nodes()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onAdd(Node n) {
                nodeChanged.accept(n);
              }

              @Override
              public void onUpdate(Node old, Node n) {
                if (!NodeChange.isHeartbeatOnly(old, n)) {
                  nodeChanged.accept(n);
                }
              }

              @Override
              public void onDelete(Node n) {
                nodeChanged.accept(n);
              }
            });
  }

  public ControlLoop loop() {
    return loop;
  }

  /**
   * This instance leads: a new term. Outcomes of the last term's calls are dropped (they are
   * idempotent and simply made again); its calls still in flight keep their serializer slots, so
   * the first call of this term waits for them.
   */
  public void startLeading() {
    startLeading(1);
  }

  /**
   * As {@link #startLeading()}, as the {@code epoch}-th leader of the cluster: after the first, a
   * predecessor's destructive call may still be running, so this term's wait {@link
   * PluginCalls#TAKEOVER_QUIET}.
   */
  public void startLeading(long epoch) {
    calls.startLeading(epoch);
  }

  /** Deposed: every call waiting for its turn fails at once; none of them starts. */
  public void stopLeading() {
    calls.stopLeading();
  }

  Result reconcile(String name) {
    return StaleWrites.requeued(this::sync).apply(name);
  }

  private Result sync(String name) {
    var cached = informers.volumes().cache().get(name);
    if (cached.isEmpty()) {
      calls.takeOutcome(name);
      written.remove(name);
      return Result.done();
    }
    var v = cached.get();
    var ours = written.get(name);
    if (ours != null && v.metadata().revision() < ours) {
      // The cache has not seen our last write: deciding on it could repeat a step (its event
      // enqueues us).
      return Result.requeueAfter(CACHE_WAIT);
    }
    var outcome = calls.takeOutcome(name);
    if (outcome.isPresent()) {
      return persist(v, outcome.get());
    }
    if (calls.inFlight(name)) {
      return Result.done();
    }
    var route = ControllerRoute.choose(v.spec().plugin(), informers.nodes().cache().list());
    if (v.status().externalId().isEmpty()) {
      if (v.metadata().isDeleting()) {
        return removeFinalizer(v);
      }
      if (route.isEmpty()) {
        return noRoute(v);
      }
      var info = calls.info(name, route.get());
      if (info.isEmpty()) {
        return Result.done();
      }
      if (!info.get().accessModes().isEmpty()
          && !info.get().accessModes().contains(v.spec().accessMode())) {
        setCondition(
            v,
            Conditions.of(
                VolumeConditions.READY,
                false,
                "AccessModeUnsupported",
                "plugin "
                    + v.spec().plugin()
                    + " does not support access mode "
                    + v.spec().accessMode()
                    + " (it supports "
                    + info.get().accessModes()
                    + ")"));
        return Result.requeueAfter(RETRY_FAILED);
      }
      return calls.call(
          v,
          route.get(),
          CsiCall.CreateVolume,
          "volume " + name,
          p ->
              p.createVolume(
                      "qm-" + v.metadata().uid(),
                      v.spec().capacityBytes(),
                      v.spec().accessMode(),
                      v.spec().parameters())
                  .thenApply(CallOutcome.Created::new));
    }
    var publishes =
        route
            .flatMap(r -> calls.known(r.instance().endpoint()))
            .map(i -> i.has(Capability.PublishUnpublishVolume));
    if (route.isPresent() && publishes.isEmpty()) {
      calls.info(name, route.get());
      return Result.done();
    }
    var plan =
        VolumePlan.of(
            v,
            informers.tasks().cache().byIndex(Informers.BY_VOLUME, name),
            this::node,
            publishes.orElse(true));
    if (plan.edited()) {
      write(
          v,
          plan.status(),
          v.metadata().isDeleting() ? VolumePhase.Deleting : VolumePhase.Available);
      return Result.done();
    }
    if (plan.call().isPresent()) {
      if (route.isEmpty()) {
        return noRoute(v);
      }
      var c = plan.call().get();
      var node = node(c.volumeClaim().node());
      var nodeId =
          node.flatMap(n -> ControllerRoute.nodeInstance(n, v.spec().plugin()))
              .map(p -> p.csiNodeId())
              .filter(id -> !id.isEmpty());
      if (nodeId.isEmpty() && c instanceof VolumePlan.Call.Publish) {
        setCondition(
            v,
            Conditions.of(
                VolumeConditions.CALLS,
                false,
                "NoNodePlugin",
                "node "
                    + c.volumeClaim().node()
                    + " has no healthy node instance of plugin "
                    + v.spec().plugin()));
        return Result.requeueAfter(NO_ROUTE_RECHECK);
      }
      // A node gone for good may have no instance left: unpublish by the node name (the plugin's id
      // for it
      // is the node name for our plugins; others treat an unknown node as already unpublished).
      var csiNode = nodeId.orElse(c.volumeClaim().node());
      var volumeClaim = c.volumeClaim();
      return switch (c) {
        case VolumePlan.Call.Publish p ->
            calls.call(
                v,
                route.get(),
                CsiCall.ControllerPublishVolume,
                "task " + volumeClaim.task() + " on " + volumeClaim.node(),
                plugin ->
                    plugin
                        .controllerPublish(
                            v.status().externalId(),
                            csiNode,
                            v.spec().accessMode(),
                            volumeClaim.mode() == VolumeClaim.Mode.Read)
                        .thenApply(
                            ctx ->
                                new CallOutcome.Published(
                                    volumeClaim.task(), volumeClaim.taskUid(), ctx)));
        case VolumePlan.Call.Unpublish u ->
            calls.call(
                v,
                route.get(),
                CsiCall.ControllerUnpublishVolume,
                "task " + volumeClaim.task() + " on " + volumeClaim.node(),
                plugin ->
                    plugin
                        .controllerUnpublish(v.status().externalId(), csiNode)
                        .thenApply(
                            x ->
                                new CallOutcome.Unpublished(
                                    volumeClaim.task(), volumeClaim.taskUid())));
      };
    }
    if (v.metadata().isDeleting() && v.status().claims().isEmpty()) {
      if (route.isEmpty()) {
        return noRoute(v);
      }
      return calls.call(
          v,
          route.get(),
          CsiCall.DeleteVolume,
          "volume " + name,
          p -> p.deleteVolume(v.status().externalId()).thenApply(x -> new CallOutcome.Deleted()));
    }
    var phase = v.metadata().isDeleting() ? VolumePhase.Deleting : VolumePhase.Available;
    if (v.status().phase() != phase) {
      write(v, v.status(), phase);
    }
    return Result.done();
  }

  /**
   * The claim's node as the cache has it, or, when the cache lacks it, as the store has it now: a
   * node missing from a cache is not yet a deleted node, and a claim on a deleted node is detached
   * on its behalf (taking the volume from whatever still runs there).
   */
  private Optional<Node> node(String name) {
    return informers.nodes().cache().get(name).or(() -> api.get(Kinds.NODE, name));
  }

  /** Persists a finished call's outcome. */
  private Result persist(Volume v, CallOutcome o) {
    var s = v.status();
    return switch (o) {
      case CallOutcome.Info i -> {
        calls.learnt(i.endpoint(), i.info());
        loop.enqueue(v.metadata().name());
        yield Result.done();
      }
      case CallOutcome.Created c -> {
        write(
            v,
            new VolumeStatus(
                VolumePhase.Available,
                c.volume().volumeId(),
                c.volume().capacityBytes(),
                s.claims(),
                Conditions.set(
                    Conditions.set(
                        s.conditions(),
                        Conditions.of(
                            VolumeConditions.READY,
                            true,
                            "Created",
                            "created in plugin "
                                + v.spec().plugin()
                                + " as "
                                + c.volume().volumeId()),
                        env.now()),
                    Conditions.of(
                        VolumeConditions.CALLS, true, "Succeeded", "CreateVolume succeeded"),
                    env.now())),
            VolumePhase.Available);
        yield Result.done();
      }
      case CallOutcome.Published p -> {
        var claims =
            applied(s.claims(), p.task(), p.taskUid(), new VolumeClaimEvent.Attached(p.context()));
        write(
            v,
            s.withClaims(claims)
                .withConditions(
                    Conditions.set(
                        s.conditions(),
                        Conditions.of(
                            VolumeConditions.CALLS,
                            true,
                            "Succeeded",
                            "ControllerPublishVolume for task " + p.task() + " succeeded"),
                        env.now())),
            s.phase());
        yield Result.done();
      }
      case CallOutcome.Unpublished u -> {
        write(
            v,
            s.withClaims(
                applied(
                    s.claims(), u.task(), u.taskUid(), new VolumeClaimEvent.ControllerReleased())),
            s.phase());
        yield Result.done();
      }
      case CallOutcome.Deleted d -> {
        write(
            v,
            new VolumeStatus(VolumePhase.Deleting, "", 0, List.of(), s.conditions()),
            VolumePhase.Deleting);
        yield Result.done();
      }
      case CallOutcome.Failed f -> {
        var e = f.error();
        LOG.info(
            "volume {}: {} ({}) failed: {}",
            v.metadata().name(),
            e.call(),
            f.detail(),
            e.getMessage());
        setCondition(
            v,
            Conditions.of(
                VolumeConditions.CALLS,
                false,
                e.call() + "Failed",
                e.call()
                    + " ("
                    + f.detail()
                    + "): "
                    + e.code()
                    + (e.detail().isEmpty() ? "" : ": " + e.detail())));
        yield e.code().retryable() ? Result.requeue() : Result.requeueAfter(RETRY_FAILED);
      }
    };
  }

  /**
   * {@code claims} with the claim of task incarnation {@code task}/{@code uid} moved by a call's
   * outcome; one that moved on meanwhile (its agent released it before the publish was recorded)
   * stays as it is.
   */
  private static List<VolumeClaim> applied(
      List<VolumeClaim> claims, String task, String uid, VolumeClaimEvent done) {
    return claims.stream()
        .map(c -> c.heldBy(task, uid) ? VolumeClaimMachine.apply(c, done).orElse(c) : c)
        .toList();
  }

  private Result noRoute(Volume v) {
    setCondition(
        v,
        Conditions.of(
            VolumeConditions.CALLS,
            false,
            "NoController",
            "no healthy controller instance of plugin "
                + v.spec().plugin()
                + " on a live node (`qm get plugins` lists the instances)"));
    return Result.requeueAfter(NO_ROUTE_RECHECK);
  }

  private Result removeFinalizer(Volume v) {
    var f = new ArrayList<>(v.metadata().finalizers());
    if (f.remove(Volume.RELEASE_FINALIZER)) {
      record(api.update(v.withMetadata(v.metadata().withFinalizers(f))));
    }
    return Result.done();
  }

  private void setCondition(Volume v, Condition c) {
    var s = v.status();
    if (!Conditions.has(s.conditions(), c)) {
      record(
          api.updateStatus(
              v.withStatus(s.withConditions(Conditions.set(s.conditions(), c, env.now())))));
    }
  }

  /** Writes the status if it changed; if not, looks again at once (no event will come to do it). */
  private void write(Volume v, VolumeStatus s, VolumePhase phase) {
    var next = s.withPhase(phase);
    if (!next.equals(v.status())) {
      record(api.updateStatus(v.withStatus(next)));
    } else {
      loop.enqueue(v.metadata().name());
    }
  }

  private void record(Volume written) {
    this.written.put(written.metadata().name(), written.metadata().revision());
  }
}
