package dev.quartermaster.kubelet.prepare;

import dev.quartermaster.agent.cdi.CdiNames;
import dev.quartermaster.agent.cdi.ClaimSpecs;
import dev.quartermaster.agent.checkpoint.DurableLedger;
import dev.quartermaster.agent.effects.EffectsReconciler;
import dev.quartermaster.agent.host.DeviceHolders;
import dev.quartermaster.agent.host.DeviceTree;
import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.ledger.PrepareRequest;
import dev.quartermaster.agent.mig.NodeMig;
import dev.quartermaster.agent.names.SafeNames;
import dev.quartermaster.agent.prepare.ClaimPreparer;
import dev.quartermaster.agent.prepare.PrepareOutcome;
import dev.quartermaster.api.device.mps.MpsShares;
import dev.quartermaster.kubelet.claims.AllocatedDevice;
import dev.quartermaster.kubelet.claims.ClaimAllocation;
import dev.quartermaster.kubelet.claims.ClaimSource;
import dev.quartermaster.kubelet.claims.ConsumedShare;
import dev.quartermaster.kubelet.claims.KubeClaim;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * NodePrepareResources and NodeUnprepareResources, claim by claim, through the agent's {@link
 * ClaimPreparer}: the same ledger rules, journal and CDI specs as {@code qm agent}. What this class
 * adds is only the kubelet's side — which devices a claim has ({@link ClaimSource}), the pool
 * check, and the per-claim answers.
 *
 * <p>So, whatever order the kubelet's pod workers call in:
 *
 * <ul>
 *   <li>a prepare for a device another claim holds (started or prepared) is refused, naming the
 *       holder's uid; the kubelet calls again, and it succeeds once the holder is unprepared;
 *   <li>a prepare for a device some live process still has open (the container of a force-deleted
 *       pod whose claim the kubelet already unprepared) is refused, naming the pid and command,
 *       until it is closed;
 *   <li>a repeated prepare returns the same devices and CDI ids;
 *   <li>unprepare needs only the ledger, and succeeds for a claim never seen;
 *   <li>a prepare that arrives after its claim's unprepare (a retry still in flight) is refused by
 *       the claim's tombstone and cannot take the device again.
 * </ul>
 *
 * <p>The devices' pool must be this node's ({@code pool}: the node name, as this driver publishes
 * its ResourceSlice); device names are the agent's ({@code gpu-0}, {@code channel-5}).
 *
 * <p>Thread-safe: the ledger decides atomically, so concurrent calls need no lock here (the
 * kubelet's helper library serializes calls for drivers that cannot say as much).
 */
public final class DraPreparer {
  private static final Logger LOG = LoggerFactory.getLogger(DraPreparer.class);

  private final String pool;
  private final ClaimSource source;
  private final ClaimPreparer preparer;
  private final DeviceLook devices;

  public DraPreparer(String pool, ClaimSource source, ClaimPreparer preparer, DeviceLook devices) {
    this.pool = Objects.requireNonNull(pool, "pool");
    this.source = Objects.requireNonNull(source, "source");
    this.preparer = Objects.requireNonNull(preparer, "preparer");
    this.devices = Objects.requireNonNull(devices, "devices");
  }

  /**
   * A preparer on {@code durable}'s ledger, writing CDI specs with {@code specs}, for the devices
   * of {@code tree}. Cleans up as the agent does at start: CDI specs of claims the ledger does not
   * hold are removed (left by a crash between the tombstone and the spec's removal). A new prepare
   * waits while {@code holders} finds a live process holding one of its devices. MIG slices are
   * prepared through {@code mig} (their instances are its to make).
   */
  public static DraPreparer start(
      String pool,
      ClaimSource source,
      DurableLedger durable,
      ClaimSpecs specs,
      DeviceTree tree,
      EffectsReconciler effects,
      DeviceHolders holders,
      NodeMig mig)
      throws IOException {
    var look = new DeviceLook(tree);
    var preparer =
        new ClaimPreparer(
            durable,
            specs,
            effects,
            look::current,
            tree::checkControlNodes,
            tree::checkNode,
            holders);
    preparer.useMig(mig);
    preparer.removeOrphanSpecs();
    preparer.syncEffects();
    return new DraPreparer(pool, source, preparer, look);
  }

  /** The node's devices, as the last call looked at them. */
  public DeviceLook devices() {
    return devices;
  }

  /** The agent's preparer underneath (its ledger, for status and tests). */
  public ClaimPreparer claimPreparer() {
    return preparer;
  }

  /** Prepares each claim; one answer per distinct uid, in request order. */
  public Map<String, ClaimPrepareResult> prepare(List<KubeClaim> claims) {
    devices.rescan(); // once per call: the kubelet retries, so a GPU that is back is seen then
    var answers = new LinkedHashMap<String, ClaimPrepareResult>();
    for (var claim : claims) {
      if (!answers.containsKey(claim.uid())) {
        var answer = prepare(claim);
        if (answer instanceof ClaimPrepareResult.NotPrepared(var error)) {
          LOG.info("prepare of claim {} refused: {}", claim, error);
        } else {
          LOG.info("prepared claim {}", claim);
        }
        answers.put(claim.uid(), answer);
      }
    }
    return answers;
  }

  /** Unprepares each claim; one answer per distinct uid, in request order. */
  public Map<String, ClaimUnprepareResult> unprepare(List<KubeClaim> claims) {
    var answers = new LinkedHashMap<String, ClaimUnprepareResult>();
    for (var claim : claims) {
      answers.computeIfAbsent(claim.uid(), uid -> unprepare(claim));
    }
    return answers;
  }

  private ClaimPrepareResult prepare(KubeClaim claim) {
    if (!isClaimUid(claim.uid())) {
      return new ClaimPrepareResult.NotPrepared(
          "claim " + claim + ": the uid " + SafeNames.UID_RULE);
    }
    List<AllocatedDevice> allocated;
    Optional<String> domain;
    switch (source.allocation(claim)) {
      case ClaimAllocation.Unavailable(var reason) -> {
        return new ClaimPrepareResult.NotPrepared(reason);
      }
      case ClaimAllocation.Allocated(var devices, var computeDomain) -> {
        allocated = devices;
        domain = computeDomain;
      }
    }
    // One ledger device per device name; a device listed for several requests serves them all.
    var requestsByDevice = new LinkedHashMap<String, LinkedHashSet<String>>();
    var allocatedAs = new LinkedHashMap<String, AllocatedDevice>(); // ledger name → allocation
    for (var device : allocated) {
      if (!device.pool().equals(pool)) {
        return new ClaimPrepareResult.NotPrepared(
            "claim "
                + claim
                + ": device "
                + device.pool()
                + "/"
                + device.device()
                + " is not in this node's pool "
                + pool);
      }
      if (!SafeNames.isDeviceName(device.device())) {
        return new ClaimPrepareResult.NotPrepared(
            "claim " + claim + ": device name '" + device.device() + "' " + SafeNames.DEVICE_RULE);
      }
      var name = device.device();
      if (device.share().isPresent() || MpsShares.gpuOfTemplate(name).isPresent()) {
        var share = ShareNames.of(claim, device, requestsByDevice.keySet(), preparer);
        if (share instanceof ShareNames.Refused(var why)) {
          return new ClaimPrepareResult.NotPrepared(why);
        }
        name = ((ShareNames.Named) share).name();
      }
      requestsByDevice
          .computeIfAbsent(name, d -> new LinkedHashSet<>())
          .addAll(device.requestNames());
      allocatedAs.putIfAbsent(name, device);
    }
    if (requestsByDevice.isEmpty()) {
      return new ClaimPrepareResult.NotPrepared(
          "claim " + claim + " has no device of this driver allocated");
    }
    var ref = ledgerRef(claim);
    PrepareOutcome outcome;
    try {
      outcome =
          preparer.prepare(new PrepareRequest(ref, List.copyOf(requestsByDevice.keySet()), domain));
    } catch (IOException e) {
      return new ClaimPrepareResult.NotPrepared(
          "claim " + claim + ": the ledger could not be written (" + e.getMessage() + ")");
    }
    return switch (outcome) {
      case PrepareOutcome.Prepared(var cdiDevices) ->
          new ClaimPrepareResult.Prepared(
              devicesOf(claim.uid(), requestsByDevice, allocatedAs, cdiDevices));
      case PrepareOutcome.Waiting(var reason) ->
          new ClaimPrepareResult.NotPrepared("not yet (retry): " + reason);
      case PrepareOutcome.Refused(var reason, var retryAt) ->
          new ClaimPrepareResult.NotPrepared(reason);
      case PrepareOutcome.Failed(var reason) -> new ClaimPrepareResult.NotPrepared(reason);
    };
  }

  private List<PreparedDevice> devicesOf(
      String uid,
      Map<String, LinkedHashSet<String>> requestsByDevice,
      Map<String, AllocatedDevice> allocatedAs,
      List<String> cdiDevices) {
    var out = new ArrayList<PreparedDevice>();
    requestsByDevice.forEach(
        (device, requests) -> {
          // The agent names a device's CDI device <class>=<claim-uid>-<device>.
          var suffix = "=" + CdiNames.deviceName(uid, device);
          var ids = cdiDevices.stream().filter(id -> id.endsWith(suffix)).toList();
          var allocated = allocatedAs.get(device);
          out.add(
              new PreparedDevice(
                  pool,
                  allocated.device(),
                  List.copyOf(requests),
                  ids,
                  allocated.share().map(ConsumedShare::shareId)));
        });
    return out;
  }

  private ClaimUnprepareResult unprepare(KubeClaim claim) {
    if (!isClaimUid(claim.uid())) {
      // Never accepted by prepare, so never in the ledger: nothing to release.
      return new ClaimUnprepareResult.Unprepared();
    }
    try {
      var outcome = preparer.unprepare(ledgerRef(claim));
      if (!outcome.effectErrors().isEmpty()) {
        LOG.warn("claim {} unprepared; side effects lag: {}", claim, outcome.effectErrors());
      }
      LOG.info("unprepared claim {} ({})", claim, outcome.result().getClass().getSimpleName());
      return new ClaimUnprepareResult.Unprepared();
    } catch (IOException e) {
      return new ClaimUnprepareResult.NotUnprepared(
          "claim " + claim + ": the ledger could not be written (" + e.getMessage() + ")");
    }
  }

  private static ClaimRef ledgerRef(KubeClaim claim) {
    return new ClaimRef(claim.uid(), LedgerNames.of(claim.name()));
  }

  private static boolean isClaimUid(String uid) {
    try {
      SafeNames.requireClaimUid(uid);
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }
}
