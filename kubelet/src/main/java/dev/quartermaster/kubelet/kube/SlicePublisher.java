package dev.quartermaster.kubelet.kube;

import dev.quartermaster.agent.controlnodes.ControlNodeStatus;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.kubelet.prepare.NodeDevices;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the node's ResourceSlices what {@link NodeSlices} says of the node now: looks at the node
 * and at the slices the API server holds for it every period, and writes only when they differ,
 * with the pool's generation one higher, so the scheduler never mixes slices of two looks. Slices
 * of this node and driver that are no longer wanted are deleted.
 *
 * <p>Compared with what the API server holds, not with what this publisher last wrote: the kubelet
 * deletes every slice of its node when it starts (and a driver's slices some time after it goes),
 * and a publisher that remembered its last write would never publish again (issue 43: "No resources
 * found" for over 6 minutes after a kubelet restart, every new GPU pod Pending). Each slice carries
 * the digest of the devices it was written with ({@link KubeNames#DEVICES_DIGEST}); a slice that is
 * missing, extra, of another digest or generation, or of an incomplete pool is a difference. The
 * kubelet registering the driver again (it restarted) makes a look at once ({@link #lookNow}).
 *
 * <p>A write goes above the highest generation ever seen or written for the node (a restarted
 * plugin must not go back, and slices deleted behind its back come back higher). A write that fails
 * is tried again at the next look; until then the scheduler sees the last complete publication,
 * which the prepare-time check backs up.
 */
public final class SlicePublisher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SlicePublisher.class);

  private final KubernetesClient client;
  private final String driver;
  private final String node;
  private final Supplier<NodeDevices> look;
  private final Function<NodeDevices, NodeSlices.Publication> publication;
  private final Env env;
  private Optional<Env.Cancellable> next = Optional.empty();
  private boolean closed;
  private Optional<ControlNodeStatus> publishedControlNodes = Optional.empty();
  private long generation = -1;

  /** What one look did. */
  public sealed interface Outcome {
    /** The API server holds the node's devices as they are. */
    record Unchanged() implements Outcome {}

    /** The slices were written at {@code generation}. */
    record Published(long generation, int devices, int slices) implements Outcome {}

    /** The API server refused or could not be reached; the next look tries again. */
    record Failed(String reason) implements Outcome {}
  }

  public SlicePublisher(
      Env env, KubernetesClient client, String driver, String node, Supplier<NodeDevices> look) {
    this(env, client, driver, node, look, NodeSlices::publication);
  }

  /** As above, publishing what {@code publication} makes of each look. */
  public SlicePublisher(
      Env env,
      KubernetesClient client,
      String driver,
      String node,
      Supplier<NodeDevices> look,
      Function<NodeDevices, NodeSlices.Publication> publication) {
    this.publication = Objects.requireNonNull(publication, "publication");
    this.env = Objects.requireNonNull(env, "env");
    this.client = Objects.requireNonNull(client, "client");
    this.driver = Objects.requireNonNull(driver, "driver");
    this.node = Objects.requireNonNull(node, "node");
    this.look = Objects.requireNonNull(look, "look");
  }

  /** Publishes now, then looks again every {@code period}. */
  public SlicePublisher start(Duration period) {
    env.execute(() -> lookEvery(period));
    return this;
  }

  private void lookEvery(Duration period) {
    publishLogged();
    synchronized (this) {
      if (!closed) {
        next = Optional.of(env.schedule(period, () -> lookEvery(period)));
      }
    }
  }

  /** Looks now, besides the periodic looks (the kubelet registered the driver again). */
  public void lookNow() {
    env.execute(this::publishLogged);
  }

  /** Looks at the node and at its slices on the API server, and writes if they differ. */
  public synchronized Outcome publish() {
    var now = look.get();
    var devices = publication.apply(now);
    try {
      var existing = new HashMap<String, ResourceSlice>();
      for (var slice :
          client
              .resources(ResourceSlice.class)
              .withLabel(KubeNames.NODE_LABEL, node)
              .list()
              .getItems()) {
        if (driver.equals(slice.getSpec().getDriver())) {
          existing.put(slice.getMetadata().getName(), slice);
          if (slice.getSpec().getPool() != null
              && slice.getSpec().getPool().getGeneration() != null) {
            generation = Math.max(generation, slice.getSpec().getPool().getGeneration());
          }
        }
      }
      if (holds(existing, devices)) {
        publishedControlNodes = Optional.of(now.controlNodes());
        return new Outcome.Unchanged();
      }
      var next = generation + 1;
      var slices = NodeSlices.slices(driver, node, next, devices);
      for (var slice : slices) {
        var current = existing.remove(slice.getMetadata().getName());
        if (current == null) {
          client.resource(slice).create();
        } else {
          slice.getMetadata().setResourceVersion(current.getMetadata().getResourceVersion());
          client.resource(slice).update();
        }
      }
      for (var stale : existing.values()) {
        client.resource(stale).delete();
      }
      generation = next;
      publishedControlNodes = Optional.of(now.controlNodes());
      return new Outcome.Published(next, devices.devices().size(), slices.size());
    } catch (KubernetesClientException e) {
      return new Outcome.Failed(e.getMessage());
    }
  }

  /**
   * Whether {@code existing} (the node's slices of this driver on the API server, by name) is
   * exactly the publication of {@code devices}: the same slices, each with its devices' digest, all
   * of one generation and naming the pool's slice count.
   */
  private boolean holds(Map<String, ResourceSlice> existing, NodeSlices.Publication devices) {
    if (existing.isEmpty()) {
      return false;
    }
    var firstPool = existing.values().iterator().next().getSpec().getPool();
    if (firstPool == null || firstPool.getGeneration() == null) {
      return false;
    }
    long heldGeneration = firstPool.getGeneration();
    var wanted = NodeSlices.slices(driver, node, heldGeneration, devices);
    var names = wanted.stream().map(s -> s.getMetadata().getName()).toList();
    if (!existing.keySet().equals(java.util.Set.copyOf(names))) {
      return false;
    }
    for (var want : wanted) {
      var held = existing.get(want.getMetadata().getName());
      var annotations = held.getMetadata().getAnnotations();
      var pool = held.getSpec().getPool();
      if (annotations == null
          || !Objects.equals(
              annotations.get(KubeNames.DEVICES_DIGEST),
              want.getMetadata().getAnnotations().get(KubeNames.DEVICES_DIGEST))
          || pool == null
          || !Objects.equals(pool.getName(), want.getSpec().getPool().getName())
          || !Objects.equals(pool.getGeneration(), (Long) heldGeneration)
          || !Objects.equals(
              pool.getResourceSliceCount(), want.getSpec().getPool().getResourceSliceCount())
          || !Objects.equals(held.getSpec().getNodeName(), node)) {
        return false;
      }
    }
    return true;
  }

  private void publishLogged() {
    try {
      switch (publish()) {
        case Outcome.Unchanged _ -> {}
        case Outcome.Published p ->
            LOG.info(
                "published {} devices of node {} in {} ResourceSlices, generation {}{}",
                p.devices(),
                node,
                p.slices(),
                p.generation(),
                notReady());
        case Outcome.Failed f ->
            LOG.warn(
                "publishing the ResourceSlices of node {} failed (will retry): {}",
                node,
                f.reason());
      }
    } catch (RuntimeException e) {
      LOG.error("publishing the ResourceSlices of node {} failed (will retry)", node, e);
    }
  }

  /** What the last publication said of the control nodes, for its log line. */
  private synchronized String notReady() {
    return publishedControlNodes
        .filter(status -> !status.ready())
        .map(
            status ->
                "; its GPUs are tainted "
                    + KubeNames.CONTROL_NODES_TAINT
                    + "="
                    + status.reason()
                    + ": "
                    + status.message())
        .orElse("");
  }

  @Override
  public synchronized void close() {
    closed = true;
    next.ifPresent(Env.Cancellable::cancel);
  }
}
