package dev.quartermaster.kubelet.plugin;

import dev.quartermaster.agent.cdi.CdiSpecWriter;
import dev.quartermaster.agent.checkpoint.AtomicLedgerFile;
import dev.quartermaster.agent.checkpoint.DurableLedger;
import dev.quartermaster.agent.checkpoint.StateDirLock;
import dev.quartermaster.agent.devices.NodeOffer;
import dev.quartermaster.agent.effects.EffectsReconciler;
import dev.quartermaster.agent.effects.OsHelperProcesses;
import dev.quartermaster.agent.health.HealthPolicy;
import dev.quartermaster.agent.health.HealthTracker;
import dev.quartermaster.agent.host.DeviceHolders;
import dev.quartermaster.agent.host.HostDeviceTree;
import dev.quartermaster.agent.host.ProcDeviceHolders;
import dev.quartermaster.agent.ledger.LedgerState;
import dev.quartermaster.agent.mig.MigControl;
import dev.quartermaster.agent.mig.NodeMig;
import dev.quartermaster.agent.mps.MpsPaths;
import dev.quartermaster.agent.mps.OsMpsDaemons;
import dev.quartermaster.csi.grpc.CsiServer;
import dev.quartermaster.kubelet.claims.ClaimSource;
import dev.quartermaster.kubelet.grpc.DraServices;
import dev.quartermaster.kubelet.grpc.DraV1Service;
import dev.quartermaster.kubelet.grpc.DraV1beta1Service;
import dev.quartermaster.kubelet.grpc.RegistrationService;
import dev.quartermaster.kubelet.grpc.RegistrationState;
import dev.quartermaster.kubelet.prepare.DomainFile;
import dev.quartermaster.kubelet.prepare.DraPreparer;
import dev.quartermaster.kubelet.prepare.NodeDevices;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DRA kubelet plugin of one node, as a DaemonSet pod runs it: takes the state directory's lock,
 * loads the ledger from its journal, and serves the DRA services ({@code v1} and {@code v1beta1})
 * on {@code dra.sock}, then plugin registration on {@code <driver>-reg.sock} in the kubelet's
 * registry directory — in that order, so the kubelet never finds a registration whose endpoint is
 * not listening yet. Closing removes the registration socket first (the kubelet deregisters the
 * driver), then the DRA socket, then releases the lock; the ledger stays for the next start.
 *
 * <p>The state directory's lock is the agent's own: a {@code qm agent} and a kubelet plugin (or two
 * plugins) can never keep two ledgers for the same GPUs, which would let each hand out a device the
 * other holds.
 *
 * <p>The gRPC servers are {@code csi}'s {@link CsiServer}: gRPC on a Unix socket over epoll, each
 * call on a virtual thread, a stale socket from a crashed run replaced — nothing CSI-specific.
 */
public final class KubeletPlugin implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KubeletPlugin.class);

  /** How often a simulated root's health files would be polled; the plugin reads no health yet. */
  private static final Duration HEALTH_POLL = Duration.ofSeconds(2);

  private final KubeletPluginConfig config;
  private final StateDirLock lock;
  private final DraPreparer preparer;
  private final HostDeviceTree tree;
  private final NodeMig mig;
  private final NodeOffer offer;
  private final RegistrationService registration;
  private final CsiServer draServer;
  private final CsiServer registrationServer;
  private final AtomicBoolean closed = new AtomicBoolean();

  private KubeletPlugin(
      KubeletPluginConfig config,
      StateDirLock lock,
      DraPreparer preparer,
      HostDeviceTree tree,
      NodeMig mig,
      NodeOffer offer,
      RegistrationService registration,
      CsiServer draServer,
      CsiServer registrationServer) {
    this.config = config;
    this.lock = lock;
    this.preparer = preparer;
    this.tree = tree;
    this.mig = mig;
    this.offer = offer;
    this.registration = registration;
    this.draServer = draServer;
    this.registrationServer = registrationServer;
  }

  /**
   * Starts the plugin; throws if the state directory is locked, the ledger is corrupt or a socket
   * cannot be bound.
   */
  public static KubeletPlugin start(KubeletPluginConfig config, ClaimSource source)
      throws IOException {
    return start(config, source, ProcDeviceHolders.forRoot(config.deviceRoot()));
  }

  /**
   * As {@link #start(KubeletPluginConfig, ClaimSource)}, asking {@code holders} who holds a device.
   */
  public static KubeletPlugin start(
      KubeletPluginConfig config, ClaimSource source, DeviceHolders holders) throws IOException {
    var lock = StateDirLock.acquire(config.stateDir());
    var started = new ArrayList<CsiServer>();
    try {
      var opened =
          DurableLedger.open(
              new AtomicLedgerFile(config.ledgerFile()),
              config.bootId(),
              config.env(),
              config.tombstoneTtl());
      if (!opened.droppedByReboot().isEmpty()) {
        LOG.warn(
            "the node rebooted: dropped {} claims prepared before it",
            opened.droppedByReboot().size());
      }
      var tree = new HostDeviceTree(config.deviceRoot(), config.nvml(), HEALTH_POLL);
      var mps = new MpsPaths(config.mpsDir());
      var effects =
          new EffectsReconciler(
              new OsHelperProcesses(config.helperDir(), config.helperCommand()),
              new DomainFile(config.domainFile()),
              new OsMpsDaemons(mps, OsMpsDaemons.commandHere()));
      var mig = new NodeMig(tree.mig());
      mig.wish(config.sharing().mig());
      var preparer =
          DraPreparer.start(
              config.nodeName(),
              source,
              opened.ledger(),
              new CdiSpecWriter(config.cdiDir(), mps),
              tree,
              effects,
              holders,
              mig);
      var offer =
          new NodeOffer(
              new HealthTracker(config.env(), HealthPolicy.defaults(HEALTH_POLL), (d, h) -> {}));
      offer.useMig(mig);
      offer.useSharing(config.sharing().shared());
      var dra =
          CsiServer.start(
              config.draSocket().toString(),
              List.of(new DraV1Service(preparer), new DraV1beta1Service(preparer)));
      started.add(dra);
      var registration =
          new RegistrationService(config.driverName(), config.draSocket(), DraServices.SUPPORTED);
      var registrationServer =
          CsiServer.start(config.registrationSocket().toString(), List.of(registration));
      started.add(registrationServer);
      LOG.info(
          "DRA driver {} on node {}: serving {} at {}, registration at {}",
          config.driverName(),
          config.nodeName(),
          DraServices.SUPPORTED,
          config.draSocket(),
          config.registrationSocket());
      var plugin =
          new KubeletPlugin(
              config, lock, preparer, tree, mig, offer, registration, dra, registrationServer);
      plugin.look(); // the ledger judges by the node's offer from the first prepare
      return plugin;
    } catch (IOException | RuntimeException e) {
      for (var server : started.reversed()) {
        server.close();
      }
      lock.close();
      throw e;
    }
  }

  public KubeletPluginConfig config() {
    return config;
  }

  /**
   * Runs {@code action} each time the kubelet registers the driver (it started, or restarted and
   * deleted the node's slices): the slice publisher looks again at once.
   */
  public void onRegistered(Runnable action) {
    registration.onRegistered(action);
  }

  /** What the kubelet last said about registering this plugin. */
  public RegistrationState registration() {
    return registration.state();
  }

  /**
   * The node's devices looked at now, and whether their control nodes are all there: what the
   * node's ResourceSlices publish.
   */
  public NodeDevices look() {
    var found = preparer.devices().rescan();
    var claims = preparer.claimPreparer();
    if (mig.control() != MigControl.NONE) {
      var changes = mig.applyModes(claims.heldDevices(), found.gpus());
      changes.switched().forEach((gpu, on) -> LOG.info("{}: MIG mode {}", gpu, on ? "on" : "off"));
      changes.waiting().values().forEach(why -> LOG.info("{}", why));
      claims.syncMig();
    }
    var offered = offer.offered(found, claims.heldDevices().keySet());
    offered.notes().forEach(n -> LOG.info("node {}: {}", config.nodeName(), n));
    offered.sharingChanges().forEach(c -> LOG.info("node {}: {}", config.nodeName(), c));
    offered.sharingWaits().forEach(w -> LOG.info("node {}: {}", config.nodeName(), w));
    // The ledger judges prepares by what the node publishes, as the scheduler allocates from it.
    claims.durable().ledger().judgeBy(offered.use(config.nodeName()));
    return new NodeDevices(found, tree.checkControlNodes(), offered);
  }

  /** The ledger as it is now. */
  public LedgerState ledger() {
    return preparer.claimPreparer().durable().ledger().snapshot();
  }

  /** Idempotent. */
  @Override
  public void close() throws IOException {
    if (closed.getAndSet(true)) {
      return;
    }
    try {
      registrationServer.close(); // first: the kubelet must stop sending calls before they fail
      draServer.close();
    } finally {
      lock.close();
    }
  }
}
