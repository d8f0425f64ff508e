package dev.quartermaster.kubelet.kube;

import dev.quartermaster.agent.controlnodes.ControlNodeStatus;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.kubelet.prepare.NodeDevices;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the node's ResourceSlices what {@link NodeSlices} says of the node now: looks at the node
 * every period and writes only when what it would publish changed (or the last write failed), with
 * the pool's generation one higher, so the scheduler never mixes slices of two looks. Slices of
 * this node and driver that are no longer wanted are deleted.
 *
 * <p>The first write starts above the highest generation already published for the node (a
 * restarted plugin must not go back). A write that fails is tried again at the next look; until
 * then the scheduler sees the last complete publication, which the prepare-time check backs up.
 */
public final class SlicePublisher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SlicePublisher.class);

  private final KubernetesClient client;
  private final String driver;
  private final String node;
  private final Supplier<NodeDevices> look;
  private final Env env;
  private Optional<Env.Cancellable> next = Optional.empty();
  private boolean closed;
  private Optional<List<Device>> published = Optional.empty();
  private Optional<ControlNodeStatus> publishedControlNodes = Optional.empty();
  private long generation = -1;

  /** What one look did. */
  public sealed interface Outcome {
    /** The node's devices are as published. */
    record Unchanged() implements Outcome {}

    /** The slices were written at {@code generation}. */
    record Published(long generation, int devices, int slices) implements Outcome {}

    /** The API server refused or could not be reached; the next look tries again. */
    record Failed(String reason) implements Outcome {}
  }

  public SlicePublisher(
      Env env, KubernetesClient client, String driver, String node, Supplier<NodeDevices> look) {
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

  /** Looks at the node and publishes what changed. */
  public synchronized Outcome publish() {
    var now = look.get();
    var devices = NodeSlices.devices(now);
    if (published.isPresent() && published.get().equals(devices)) {
      return new Outcome.Unchanged();
    }
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
      published = Optional.of(devices);
      publishedControlNodes = Optional.of(now.controlNodes());
      return new Outcome.Published(next, devices.size(), slices.size());
    } catch (KubernetesClientException e) {
      published = Optional.empty();
      return new Outcome.Failed(e.getMessage());
    }
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
