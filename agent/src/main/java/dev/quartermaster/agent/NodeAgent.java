package dev.quartermaster.agent;

import dev.quartermaster.agent.cdi.CdiSpecWriter;
import dev.quartermaster.agent.checkpoint.AtomicLedgerFile;
import dev.quartermaster.agent.checkpoint.DurableLedger;
import dev.quartermaster.agent.checkpoint.StateDirLock;
import dev.quartermaster.agent.devices.Gpu;
import dev.quartermaster.agent.devices.Inventory;
import dev.quartermaster.agent.effects.EffectsReconciler;
import dev.quartermaster.agent.effects.OsHelperProcesses;
import dev.quartermaster.agent.node.ClaimListerWatcher;
import dev.quartermaster.agent.node.ClaimSync;
import dev.quartermaster.agent.node.NodeStatusWriter;
import dev.quartermaster.agent.prepare.ClaimPreparer;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.core.env.Env.Cancellable;
import dev.quartermaster.core.informer.EventHandler;
import dev.quartermaster.core.informer.Informer;
import dev.quartermaster.core.queue.ExponentialBackoff;
import dev.quartermaster.core.queue.WorkQueue;
import dev.quartermaster.core.queue.Workers;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node agent as a library ({@code qm agent} wires it to the command line): takes the state
 * directory's lock, loads the ledger (refusing a corrupt one), cleans up after a crash, registers
 * its Node (creates or adopts it) and heartbeats into its status, publishes a DeviceSlice from the
 * device root, and reconciles the ResourceClaims allocated to its node through an informer and a
 * work queue ({@link ClaimSync}).
 *
 * <p>Start-up order matters: side effects are reconciled from the loaded ledger before any claim
 * is looked at, so a restart never drops a domain that a prepared claim needs; and no claim is
 * reconciled before the informer's first list, so an empty cache is never mistaken for "all claims
 * deleted".
 */
public final class NodeAgent implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NodeAgent.class);
  public static final String AGENT_VERSION = "0.1.0";

  private final NodeAgentConfig config;
  private final StateDirLock lock;
  private final ClaimPreparer preparer;
  private final NodeStatusWriter status;
  private final AtomicReference<Inventory> inventory;
  private final WorkQueue<String> queue;
  private final Informer<ResourceClaim> informer;
  private final ClaimSync sync;
  private Workers<String> workers;
  private volatile Cancellable heartbeat = () -> false;
  private volatile boolean closed;

  private NodeAgent(NodeAgentConfig config, StateDirLock lock, DurableLedger durable) throws IOException {
    this.config = config;
    this.lock = lock;
    this.inventory = new AtomicReference<>(config.deviceRoot().scan());
    this.status = new NodeStatusWriter(config.api(), config.nodeName());
    var helpers = new OsHelperProcesses(config.stateDir().resolve("helpers"), config.helperCommand());
    this.preparer = new ClaimPreparer(durable, new CdiSpecWriter(config.cdiDir()),
        new EffectsReconciler(helpers, status), inventory::get);
    var env = config.env();
    this.queue = new WorkQueue<>(env, new ExponentialBackoff<>(Duration.ofMillis(100), Duration.ofSeconds(10)));
    this.informer = Informer.builder(env, new ClaimListerWatcher(config.api()), (ResourceClaim c) -> c.metadata().name(),
        (ResourceClaim c) -> c.metadata().revision()).build();
    this.sync = new ClaimSync(config.api(), config.nodeName(), env, preparer,
        name -> informer.hasSynced() ? informer.cache().get(name) : Optional.empty(), queue::add);
  }

  /** Starts an agent; throws if the state directory is locked or the checkpoint is corrupt. */
  public static NodeAgent start(NodeAgentConfig config) throws IOException {
    var lock = StateDirLock.acquire(config.stateDir());
    try {
      var opened = DurableLedger.open(new AtomicLedgerFile(config.stateDir().resolve("ledger.json")), config.bootId(),
          config.env(), config.tombstoneTtl());
      var agent = new NodeAgent(config, lock, opened.ledger());
      agent.begin();
      return agent;
    } catch (IOException | RuntimeException e) {
      lock.close();
      throw e;
    }
  }

  private void begin() throws IOException {
    preparer.removeOrphanSpecs();
    var node = register();
    var effects = preparer.syncEffects(); // before any claim: what the ledger needs is in place again
    if (!effects.ok()) {
      config.env().schedule(Duration.ofSeconds(1), this::retryEffects);
    }
    publishSlice();
    informer.addHandler(new EventHandler<>() {
      @Override
      public void onAdd(ResourceClaim c) {
        enqueue(c);
      }

      @Override
      public void onUpdate(ResourceClaim old, ResourceClaim c) {
        enqueue(c);
      }

      @Override
      public void onDelete(ResourceClaim c) {
        enqueue(c);
      }
    });
    // Once the cache holds everything as of our registration, look at every claim the ledger knows,
    // including those deleted while the agent was down.
    informer.whenCaughtUp(node.metadata().revision(), () -> preparer.durable().ledger().snapshot().claims().values()
        .forEach(c -> queue.add(c.claim().name())));
    informer.start();
    workers = Workers.start(config.env(), queue, config.workers(), this::reconcile);
    heartbeat = config.env().schedule(config.heartbeat(), this::beat);
    LOG.info("agent for node {} started: state {}, CDI {}, {} GPUs", config.nodeName(), config.stateDir(),
        config.cdiDir(), inventory.get().gpus().size());
  }

  private dev.quartermaster.core.queue.Result reconcile(String name) {
    if (!informer.hasSynced()) {
      return dev.quartermaster.core.queue.Result.requeueAfter(Duration.ofMillis(50));
    }
    return sync.sync(name);
  }

  private void enqueue(ResourceClaim c) {
    if (sync.concerns(c)) {
      queue.add(c.metadata().name());
    }
  }

  private dev.quartermaster.api.node.Node register() {
    return status.update(s -> readyStatus(s));
  }

  private NodeStatus readyStatus(NodeStatus s) {
    var now = config.env().now();
    var conditions = Condition.set(s.conditions(),
        new Condition("AgentReady", Condition.Status.True, "Heartbeat", "agent is running", Optional.empty()), now);
    var problems = inventory.get().problems();
    var devices = problems.isEmpty()
        ? new Condition("DevicesReady", Condition.Status.True, "AllDevicesFound",
            inventory.get().gpus().size() + " GPUs", Optional.empty())
        : new Condition("DevicesReady", Condition.Status.False, "DeviceProblems", String.join("; ", problems),
            Optional.empty());
    conditions = Condition.set(conditions, devices, now);
    return new NodeStatus(conditions, Optional.of(now), config.bootId(), AGENT_VERSION, s.computeDomains());
  }

  private void beat() {
    if (closed) {
      return;
    }
    try {
      inventory.set(config.deviceRoot().scan());
      status.update(this::readyStatus);
      publishSlice();
    } catch (IOException | RuntimeException e) {
      LOG.warn("heartbeat of node {} failed; trying again in {}", config.nodeName(), config.heartbeat(), e);
    }
    if (!closed) {
      heartbeat = config.env().schedule(config.heartbeat(), this::beat);
    }
  }

  private void retryEffects() {
    if (!closed && !preparer.syncEffects().ok()) {
      config.env().schedule(Duration.ofSeconds(5), this::retryEffects);
    }
  }

  private void publishSlice() {
    var spec = new DeviceSliceSpec(config.nodeName(), inventory.get().gpus().stream().map(Gpu::toDevice).toList());
    var api = config.api();
    for (int attempt = 0; attempt < 8; attempt++) {
      try {
        var current = api.get(Kinds.DEVICE_SLICE, config.nodeName());
        if (current.isEmpty()) {
          api.create(new DeviceSlice(ObjectMeta.named(config.nodeName()), spec, null));
        } else if (!current.get().spec().equals(spec)) {
          api.update(new DeviceSlice(current.get().metadata(), spec, current.get().status()));
        }
        return;
      } catch (ApiException e) {
        if (!e.is(Reason.Conflict) && !e.is(Reason.AlreadyExists)) {
          throw e;
        }
      }
    }
  }

  /** The prepare pipeline (for tests and {@code qm up}). */
  public ClaimPreparer preparer() {
    return preparer;
  }

  public NodeAgentConfig config() {
    return config;
  }

  /** Stops watching and working and releases the state directory; helpers keep running for the next agent. */
  @Override
  public void close() throws IOException {
    closed = true;
    heartbeat.cancel();
    informer.stop();
    if (workers != null) {
      workers.stop();
    }
    queue.shutDown();
    lock.close();
  }
}
