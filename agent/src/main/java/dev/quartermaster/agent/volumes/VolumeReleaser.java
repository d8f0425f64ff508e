package dev.quartermaster.agent.volumes;

import dev.quartermaster.agent.host.NodePublications;
import dev.quartermaster.agent.plugins.NodePlugins;
import dev.quartermaster.agent.sync.AgentContext;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.api.volume.VolumeClaimEvent;
import dev.quartermaster.api.volume.VolumeClaimMachine;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.core.queue.Result;
import dev.quartermaster.csi.plugin.CsiCall;
import dev.quartermaster.csi.plugin.CsiCode;
import dev.quartermaster.csi.plugin.CsiException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiPredicate;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles one Volume (by name) with this node: the agent's step of the claim protocol ({@link
 * VolumeClaim}). Every claim {@code Taken} for this node whose task incarnation no longer lives
 * here ({@link VolumeClaimLiveness}: never while our process for it may still run) is
 * NodeUnpublished, the volume NodeUnstaged when no live claim of this node still needs the staging
 * path, and then the claim is moved to {@code NodeDetached} in the Volume's status
 * (compare-and-set, re-read on conflict) — the persisted step, after the calls. A crash anywhere
 * before that write leaves the claim {@code Taken}, and the next agent makes the same idempotent
 * calls again: after a restart the claims of tasks whose processes the agent stopped at start are
 * released the same way, once their tasks are marked failed.
 *
 * <p>Before a claim is released on the informer's word its task is read afresh: a claim granted to
 * a task this cache has not yet seen must not be mistaken for an orphan (a stale cache, KubeRay). A
 * claim never attached had no node calls; it goes straight to {@code NodeDetached}.
 */
public final class VolumeReleaser {
  private static final Logger LOG = LoggerFactory.getLogger(VolumeReleaser.class);
  private static final int ATTEMPTS = 8;

  /** The longest release error said on a claim; the event carries the whole message. */
  private static final int MAX_SAID = 500;

  /** The reason of the Warning event a failed release records on its volume. */
  public static final String RELEASE_FAILED = "ReleaseFailed";

  /**
   * The node calls done for a volume: these task uids unpublished, and whether the volume was
   * unstaged after.
   */
  private record Done(Set<String> uids, boolean unstaged) {}

  private final ApiClient api;
  private final String node;
  private final Function<String, Optional<Volume>> volumes;
  private final Function<String, Optional<Task>> tasks;
  private final BiPredicate<String, String> processRuns;
  private final NodePlugins plugins;
  private final NodeCalls calls;
  private final VolumeMounts mounts;
  private final Consumer<String> requeue;
  private final Duration recheck;
  private final EventRecorder events;
  private final NodePublications publications;
  private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
  private final Map<String, Done> done = new ConcurrentHashMap<>();
  private final Map<String, CsiException> failed = new ConcurrentHashMap<>();

  /**
   * A release that fails is said on the volume as a Warning event ({@code ReleaseFailed}, with the
   * plugin's message, each repetition counted into it): a volume that cannot be released holds its
   * next writer, and the operator must see why without reading the agent's log.
   *
   * @param agent the API, this node, where its events go
   * @param requeue queues a volume name for another sync (the node calls completed)
   * @param recheck how long to wait before looking again when the plugin is missing or a call
   *     failed for good
   */
  public VolumeReleaser(
      AgentContext agent,
      VolumeViews views,
      NodeVolumes here,
      Consumer<String> requeue,
      Duration recheck) {
    this.api = agent.api();
    this.node = agent.node();
    this.events = agent.events();
    this.volumes = views.volumes();
    this.tasks = views.tasks();
    this.processRuns = views.processRuns();
    this.plugins = here.plugins();
    this.calls = here.calls();
    this.mounts = here.mounts();
    this.publications = here.publications();
    this.requeue = Objects.requireNonNull(requeue, "requeue");
    this.recheck = Objects.requireNonNull(recheck, "recheck");
  }

  /**
   * Whether {@code v} has a claim for this node (in any state: a change may concern us), or a
   * publication here that no claim names.
   */
  public boolean concerns(Volume v) {
    return v.status().claims().stream().anyMatch(c -> c.node().equals(node))
        || !orphans(v).isEmpty();
  }

  /**
   * The task uids of {@code v}'s publications on this node that no claim of this node names: a
   * fenced task's (its claim freed without the node) or one a crash left between a publish and the
   * claim's end. Their tasks never run here again, so their targets only keep the volume staged.
   */
  private Set<String> orphans(Volume v) {
    var name = v.metadata().name();
    var named =
        v.status().claims().stream()
            .filter(c -> c.node().equals(node))
            .map(VolumeClaim::taskUid)
            .collect(Collectors.toSet());
    return publications.targets().stream()
        .map(t -> calls.paths().taskUidOf(t, name))
        .flatMap(Optional::stream)
        .filter(uid -> !named.contains(uid))
        .collect(Collectors.toCollection(java.util.TreeSet::new));
  }

  /** One reconcile of the Volume called {@code name}. */
  public Result sync(String name) {
    try {
      return syncOrThrow(name);
    } catch (ApiException e) {
      if (e.is(Reason.Conflict) || e.is(Reason.NotFound)) {
        return Result.requeue();
      }
      throw e;
    }
  }

  private Result syncOrThrow(String name) {
    var found = volumes.apply(name);
    if (found.isEmpty()) {
      return Result.done(); // no claims left to release; the controller frees what it deleted
    }
    var v = found.get();
    var taken = takenHere(v);
    var dead =
        taken.stream()
            .filter(c -> !VolumeClaimLiveness.live(c, node, tasks.apply(c.task()), running(c)))
            .toList();
    var orphans = orphans(v);
    if (dead.isEmpty() && orphans.isEmpty()) {
      return Result.done(); // a task's end or its process's end brings us back
    }
    // Released on the store's word only: a fresh read, not the cache (it may not know a new task
    // yet,
    // nor the claim a publication here was just made for).
    dead =
        dead.stream()
            .filter(
                c -> !VolumeClaimLiveness.live(c, node, api.get(Kinds.TASK, c.task()), running(c)))
            .toList();
    if (!orphans.isEmpty()) {
      orphans = api.get(Kinds.VOLUME, name).map(this::orphans).orElse(Set.of());
    }
    // Decided where no process can be started meanwhile: those retired never start or publish
    // again.
    var candidates = dead;
    dead =
        calls.exclusively(
            () -> {
              var over = candidates.stream().filter(c -> !running(c)).toList();
              over.forEach(c -> calls.retire(name, c.taskUid()));
              return over;
            });
    if (dead.isEmpty() && orphans.isEmpty()) {
      return Result.done();
    }
    if (inFlight.contains(name)) {
      return Result.done(); // the calls' completion brings us back
    }
    var error = failed.remove(name);
    if (error != null) {
      LOG.info("volume {}: releasing on {} failed: {}", name, node, error.getMessage());
      events.warning(
          v,
          RELEASE_FAILED,
          "releasing "
              + what(dead, orphans)
              + " on "
              + node
              + " failed: "
              + error.getMessage()
              + "; the claims stay Taken and the release is retried");
      sayFailing(name, dead, error.getMessage());
      return error.code().retryable() ? Result.requeue() : Result.requeueAfter(recheck);
    }
    var deadUids = dead.stream().map(VolumeClaim::taskUid).collect(Collectors.toSet());
    var stillLive = taken.stream().filter(c -> !deadUids.contains(c.taskUid())).toList();
    var unpublish = new java.util.TreeSet<>(orphans);
    dead.stream().filter(VolumeClaim::attached).map(VolumeClaim::taskUid).forEach(unpublish::add);
    if (!unpublish.isEmpty() && !covered(done.get(name), unpublish, stillLive.isEmpty())) {
      var plugin = plugins.nodePlugin(v.spec().plugin());
      if (plugin.isEmpty()) {
        LOG.info(
            "volume {}: cannot release its claims on {} yet: {}",
            name,
            node,
            plugins.whyNot(v.spec().plugin()));
        return Result.requeueAfter(recheck);
      }
      var uids = Set.copyOf(unpublish);
      boolean unstage = stillLive.isEmpty();
      inFlight.add(name);
      done.remove(name);
      if (!orphans.isEmpty()) {
        LOG.info(
            "volume {}: unpublishing on {} the targets no claim names (task uids {})",
            name,
            node,
            orphans);
      }
      calls
          .release(v, uids, unstage, plugin.get())
          .whenComplete(
              (x, e) -> {
                if (e != null) {
                  var why = CsiException.of(CsiCall.NodeUnpublishVolume, e);
                  failed.put(name, why);
                  if (why.code() == CsiCode.UNAVAILABLE
                      || why.code() == CsiCode.DEADLINE_EXCEEDED) {
                    plugins.probeSoon();
                  }
                } else {
                  done.put(name, new Done(uids, unstage));
                }
                inFlight.remove(name);
                requeue.accept(name);
              });
      return Result.done();
    }
    if (!dead.isEmpty()) {
      markDetached(name, dead);
    }
    done.remove(name);
    dead.forEach(c -> mounts.forget(name, c.taskUid()));
    LOG.info("volume {}: {} released on {}", name, what(dead, orphans), node);
    return Result.done();
  }

  private static String what(List<VolumeClaim> dead, Set<String> orphans) {
    var claims =
        dead.isEmpty() ? "" : "the claims of " + dead.stream().map(VolumeClaim::task).toList();
    var left =
        orphans.isEmpty()
            ? ""
            : "the publications of task uids " + orphans + " (no claim names them)";
    return claims.isEmpty() ? left : left.isEmpty() ? claims : claims + " and " + left;
  }

  private boolean running(VolumeClaim c) {
    return processRuns.test(c.task(), c.taskUid());
  }

  private List<VolumeClaim> takenHere(Volume v) {
    return v.status().claims().stream()
        .filter(c -> c.node().equals(node) && c.state() == VolumeClaim.State.Taken)
        .toList();
  }

  /**
   * Whether the calls done cover these targets (and the unstage, when nothing live needs the
   * staging path).
   */
  private static boolean covered(Done d, Set<String> uids, boolean needUnstage) {
    return d != null && d.uids().containsAll(uids) && (d.unstaged() || !needUnstage);
  }

  /**
   * The failure said on each of {@code dead}'s claims ({@code releaseError}), so the task waiting
   * for the volume and {@code describe volume} show it; written only when it changed, so a release
   * retried every few seconds does not rewrite the volume each time. Best effort: the event says it
   * anyway.
   */
  private void sayFailing(String name, List<VolumeClaim> dead, String message) {
    var said = message.length() > MAX_SAID ? message.substring(0, MAX_SAID) + "…" : message;
    try {
      applyToOwn(name, dead, new VolumeClaimEvent.ReleaseFailed(said));
    } catch (ApiException e) {
      LOG.info(
          "volume {}: could not say on its claims why their release on {} fails: {}",
          name,
          node,
          e.getMessage());
    }
  }

  /** {@code Taken → NodeDetached} for {@code dead}, compare-and-set on the Volume read afresh. */
  private void markDetached(String name, List<VolumeClaim> dead) {
    applyToOwn(name, dead, new VolumeClaimEvent.NodeReleased());
  }

  /**
   * {@code done} applied to this node's claims of {@code dead} in the Volume, compare-and-set on a
   * fresh read; a claim the machine will not move (no longer {@code Taken}) stays as it is.
   */
  private void applyToOwn(String name, List<VolumeClaim> dead, VolumeClaimEvent done) {
    ApiException last = null;
    for (int i = 0; i < ATTEMPTS; i++) {
      var current = api.get(Kinds.VOLUME, name);
      if (current.isEmpty()) {
        return;
      }
      var v = current.get();
      var next =
          v.status().claims().stream()
              .map(
                  c ->
                      c.node().equals(node)
                              && dead.stream().anyMatch(d -> c.heldBy(d.task(), d.taskUid()))
                          ? VolumeClaimMachine.apply(c, done).orElse(c)
                          : c)
              .toList();
      if (next.equals(v.status().claims())) {
        return;
      }
      try {
        api.updateStatus(v.withStatus(v.status().withClaims(next)));
        return;
      } catch (ApiException e) {
        if (!e.is(Reason.Conflict)) {
          throw e;
        }
        last = e; // the controller wrote in between: read again
      }
    }
    throw last;
  }
}
