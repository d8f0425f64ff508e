package dev.quartermaster.agent.volumes;

import dev.quartermaster.agent.plugins.NodePlugins;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.api.volume.VolumePhase;
import dev.quartermaster.api.volume.VolumeSpec;
import dev.quartermaster.api.volume.VolumeUse;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.csi.plugin.CsiCall;
import dev.quartermaster.csi.plugin.CsiCode;
import dev.quartermaster.csi.plugin.CsiException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gets a task's volumes published on this node before it starts: for each {@link VolumeUse}, the
 * Volume must exist, hold a claim {@code Taken} by this task incarnation for this node, attached
 * (ControllerPublish done), and its plugin must serve this node healthily; then NodeStage (where
 * the plugin stages) and NodePublish run asynchronously and their completion brings the task back
 * through its work queue. Until every volume is published the answer is {@link Waiting}, naming
 * what it waits for; the task's status says so and nothing starts.
 *
 * <p>A failed call is not remembered past one answer: a retryable one (ABORTED, UNAVAILABLE, ...)
 * asks for the queue's backoff, another waits for the recheck period; either way the next look
 * calls again (every call is idempotent; a publish that failed after a successful stage leaves the
 * volume staged, which the next attempt or the release reuses).
 */
public final class VolumeMounts {
  private static final Logger LOG = LoggerFactory.getLogger(VolumeMounts.class);
  public static final String WAITING = "WaitingForVolume";

  /** What a task's volumes allow. */
  public sealed interface Readiness {}

  /** Every volume is published here: start the task with these. */
  public record Ready(List<MountedVolume> volumes) implements Readiness {
    public Ready {
      volumes = List.copyOf(volumes);
    }
  }

  /**
   * Not yet: {@code message} says why; {@code backoff}: a retryable call failed, retry with the
   * queue's backoff.
   */
  public record Waiting(String message, boolean backoff) implements Readiness {}

  /** One publish of a volume for a task incarnation. */
  private sealed interface Job {}

  private record InFlight() implements Job {}

  private record Published(String target) implements Job {}

  private record Failed(CsiException error) implements Job {}

  private final String node;
  private final Function<String, Optional<Volume>> volumes;
  private final NodePlugins plugins;
  private final NodeCalls calls;
  private final Consumer<String> requeueTask;
  private final Consumer<String> releaseVolume;

  /** By {@code volume/taskUid}. */
  private final Map<String, Job> jobs = new ConcurrentHashMap<>();

  /**
   * @param volumes the informer's view of a Volume by name
   * @param requeueTask queues a task name for another sync (a publish completed)
   * @param releaseVolume queues a volume name for the release sync (a task's process ended)
   */
  public VolumeMounts(
      String node,
      Function<String, Optional<Volume>> volumes,
      NodePlugins plugins,
      NodeCalls calls,
      Consumer<String> requeueTask,
      Consumer<String> releaseVolume) {
    this.node = Objects.requireNonNull(node, "node");
    this.volumes = Objects.requireNonNull(volumes, "volumes");
    this.plugins = Objects.requireNonNull(plugins, "plugins");
    this.calls = Objects.requireNonNull(calls, "calls");
    this.requeueTask = Objects.requireNonNull(requeueTask, "requeueTask");
    this.releaseVolume = Objects.requireNonNull(releaseVolume, "releaseVolume");
  }

  /** Whether {@code t}'s volumes are all published here; starts the calls that are due. */
  public Readiness ensure(Task t) {
    var mounted = new ArrayList<MountedVolume>();
    Optional<Waiting> first = Optional.empty();
    for (var use : t.spec().volumes()) {
      var one = one(t, use);
      if (one instanceof Ready r) {
        mounted.addAll(r.volumes());
      } else if (first.isEmpty()) {
        first = Optional.of((Waiting) one);
      }
    }
    return first.<Readiness>map(w -> w).orElseGet(() -> new Ready(mounted));
  }

  /**
   * Runs {@code start} (the task's process start and its registration as running) unless one of the
   * task's volume claims was retired by the releaser meanwhile; atomically with the releaser's
   * decision, so that a claim is never released under a process being started.
   */
  public <T> Optional<T> startUnlessReleased(Task t, Supplier<T> start) {
    var uid = t.metadata().uid();
    return calls.exclusively(
        () ->
            t.spec().volumes().stream().anyMatch(u -> calls.retired(u.name(), uid))
                ? Optional.<T>empty()
                : Optional.of(start.get()));
  }

  /**
   * The process of a task that used {@code volumeNames} is gone: its claims may be released now.
   */
  public void processEnded(List<String> volumeNames) {
    volumeNames.forEach(releaseVolume);
  }

  /**
   * The release of {@code volume}'s claim of incarnation {@code taskUid} is done: nothing of it is
   * kept.
   */
  void forget(String volume, String taskUid) {
    jobs.remove(key(volume, taskUid));
  }

  private Readiness one(Task t, VolumeUse use) {
    var name = use.name();
    var found = volumes.apply(name);
    if (found.isEmpty()) {
      return waiting("volume " + name + " does not exist");
    }
    var v = found.get();
    var task = t.metadata().name();
    var uid = t.metadata().uid();
    var mine = v.status().claims().stream().filter(c -> c.heldBy(task, uid)).findFirst();
    if (mine.isEmpty()) {
      if (v.metadata().isDeleting()) {
        return waiting("volume " + name + " is being deleted");
      }
      if (v.status().phase() == VolumePhase.Pending) {
        return waiting("volume " + name + " is not created yet (Pending)");
      }
      var access = v.spec().accessMode();
      if (use.mode() == VolumeClaim.Mode.Write
          && (access == VolumeSpec.AccessMode.SingleNodeReaderOnly
              || access == VolumeSpec.AccessMode.MultiNodeReaderOnly)) {
        // The controller never grants it: say so rather than "waiting" forever.
        return waiting(
            "volume "
                + name
                + " is read-only ("
                + access
                + ") and this task writes it; use it with"
                + " readOnly: true, e.g. volumes: [{name: "
                + name
                + ", readOnly: true}]");
      }
      return waiting(
          otherHolder(v, use, task, uid)
              .map(
                  c ->
                      "volume "
                          + name
                          + " is held by task "
                          + c.task()
                          + " ("
                          + (c.mode() == VolumeClaim.Mode.Write ? "writer" : "reader")
                          + ") on "
                          + c.node()
                          + (c.releaseError().isEmpty()
                              ? ""
                              : "; its release there keeps failing: " + c.releaseError()))
              .orElse("waiting for the volume controller to grant the claim on volume " + name));
    }
    var volumeClaim = mine.get();
    if (!volumeClaim.node().equals(node)) {
      return waiting(
          "the claim on volume " + name + " is for node " + volumeClaim.node() + ", not " + node);
    }
    if (volumeClaim.state() != VolumeClaim.State.Taken) {
      return waiting(
          "the claim on volume " + name + " is being released (" + volumeClaim.state() + ")");
    }
    if (!volumeClaim.attached()) {
      return waiting("waiting for ControllerPublish of " + name + " to " + node);
    }
    var key = key(name, uid);
    var job = jobs.get(key);
    switch (job) {
      case Published p -> {
        return new Ready(List.of(new MountedVolume(use, p.target())));
      }
      case InFlight i -> {
        return waiting("publishing volume " + name + " on " + node);
      }
      case Failed f -> {
        jobs.remove(key, f); // the next look calls again
        return new Waiting(
            "volume " + name + ": " + f.error().getMessage(), f.error().code().retryable());
      }
      case null -> {
        // below
      }
    }
    var plugin = plugins.nodePlugin(v.spec().plugin());
    if (plugin.isEmpty()) {
      return waiting("volume " + name + ": " + plugins.whyNot(v.spec().plugin()));
    }
    jobs.put(key, new InFlight());
    calls
        .publish(v, volumeClaim, use.readOnly(), plugin.get())
        .whenComplete(
            (target, e) -> {
              if (e != null) {
                var error = CsiException.of(CsiCall.NodePublishVolume, e);
                LOG.info(
                    "task {}: publishing volume {} failed: {}", task, name, error.getMessage());
                jobs.put(key, new Failed(error));
                if (error.code() == CsiCode.UNAVAILABLE
                    || error.code() == CsiCode.DEADLINE_EXCEEDED) {
                  plugins.probeSoon(); // the task's status should say if the plugin itself is down
                }
              } else {
                jobs.put(key, new Published(target));
              }
              requeueTask.accept(task);
            });
    // A plugin that completes at once has already answered.
    var now = jobs.get(key);
    return now instanceof Published || now instanceof Failed
        ? one(t, use)
        : waiting("publishing volume " + name + " on " + node);
  }

  /**
   * Another holder that may be why ours is not granted: a writer first, else anyone when we write.
   */
  private static Optional<VolumeClaim> otherHolder(
      Volume v, VolumeUse use, String task, String uid) {
    var others =
        v.status().claims().stream()
            .filter(c -> !c.heldBy(task, uid) && c.state() != VolumeClaim.State.Free)
            .sorted(
                Comparator.comparing((VolumeClaim c) -> c.mode() != VolumeClaim.Mode.Write)
                    .thenComparing(VolumeClaim::task))
            .toList();
    return others.stream()
        .filter(c -> c.mode() == VolumeClaim.Mode.Write || !use.readOnly())
        .findFirst();
  }

  private static Waiting waiting(String message) {
    return new Waiting(message, false);
  }

  private static String key(String volume, String taskUid) {
    return volume + "/" + taskUid;
  }
}
