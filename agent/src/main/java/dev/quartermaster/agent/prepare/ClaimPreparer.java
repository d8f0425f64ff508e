package dev.quartermaster.agent.prepare;

import dev.quartermaster.agent.cdi.ClaimSpecs;
import dev.quartermaster.agent.checkpoint.DurableLedger;
import dev.quartermaster.agent.devices.Gpu;
import dev.quartermaster.agent.devices.Inventory;
import dev.quartermaster.agent.effects.EffectsReconciler;
import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.ledger.CompleteResult;
import dev.quartermaster.agent.ledger.NodeEffects;
import dev.quartermaster.agent.ledger.PrepareRequest;
import dev.quartermaster.agent.ledger.PrepareResult;
import dev.quartermaster.agent.ledger.UnprepareResult;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Prepare and unprepare on this node: the ledger's decisions, made durable, followed by the
 * node-side work (CDI specs) and the derived side effects. The I/O shell around the pure ledger.
 *
 * <p>Prepare: ledger {@code prepare} → persist {@code PrepareStarted} → bring side effects in line
 * (the claim's domain is joined and its helper runs before anything else) → write the CDI spec →
 * ledger {@code complete} → persist → report Prepared. If the claim was unprepared meanwhile,
 * {@code complete} says so and the spec just written is removed again.
 *
 * <p>Unprepare: ledger {@code unprepare} (tombstone) → persist → remove the CDI spec → side effects.
 * Persisting first means a crash can leave an orphan spec (removed at start-up), never a ledger that
 * says "free" while a spec still hands the device out.
 *
 * <p>Nothing is reported before the change is durable, so whatever a caller was told survives a
 * crash (I6). Safe to call concurrently, for different claims or the same one.
 */
public final class ClaimPreparer {
  private static final Logger LOG = LoggerFactory.getLogger(ClaimPreparer.class);

  private final DurableLedger durable;
  private final ClaimSpecs specs;
  private final EffectsReconciler effects;
  private final Supplier<Inventory> inventory;

  public ClaimPreparer(DurableLedger durable, ClaimSpecs specs, EffectsReconciler effects,
      Supplier<Inventory> inventory) {
    this.durable = Objects.requireNonNull(durable, "durable");
    this.specs = Objects.requireNonNull(specs, "specs");
    this.effects = Objects.requireNonNull(effects, "effects");
    this.inventory = Objects.requireNonNull(inventory, "inventory");
  }

  public DurableLedger durable() {
    return durable;
  }

  /** Prepares {@code request} as described on the class. Throws only if the checkpoint cannot be written. */
  public PrepareOutcome prepare(PrepareRequest request) throws IOException {
    var claim = request.claim();
    // Checked before the ledger: a request for devices this node lacks must not reserve anything.
    var found = inventory.get();
    var gpus = new ArrayList<Gpu>();
    for (var device : request.devices()) {
      var gpu = found.gpu(device);
      if (gpu.isEmpty()) {
        return new PrepareOutcome.Failed("device " + device + " is not on this node (found: "
            + found.gpus().stream().map(Gpu::name).toList() + ")");
      }
      gpus.add(gpu.get());
    }
    var ledger = durable.ledger();
    var decision = ledger.prepare(request);
    switch (decision) {
      case PrepareResult.AlreadyPrepared done -> {
        durable.persist(); // another caller may have completed it and still be writing
        return new PrepareOutcome.Prepared(done.entry().cdiDevices());
      }
      case PrepareResult.Held held -> {
        return new PrepareOutcome.Waiting(held.reason());
      }
      case PrepareResult.Aborted aborted -> {
        return new PrepareOutcome.Refused(aborted.reason(), aborted.expiresAt());
      }
      case PrepareResult.Mismatch mismatch -> {
        return new PrepareOutcome.Failed(mismatch.reason());
      }
      case PrepareResult.Started _ -> {
        // fall through: do the work
      }
    }
    durable.persist();
    var outcome = syncEffects();
    var domain = request.computeDomain();
    if (domain.isPresent() && !outcome.published().contains(domain.get())) {
      // The entry stays started (holding its devices and wanting its domain); a retry goes on from here.
      return new PrepareOutcome.Waiting("compute domain " + domain.get() + " is not joined yet: "
          + String.join("; ", outcome.errors()));
    }
    List<String> names;
    try {
      names = specs.write(claim, gpus);
    } catch (IOException e) {
      return new PrepareOutcome.Waiting("writing the CDI spec failed: " + e.getMessage());
    }
    var completed = ledger.complete(claim.uid(), names);
    switch (completed) {
      case CompleteResult.Completed _ -> {
        durable.persist();
        return new PrepareOutcome.Prepared(names);
      }
      case CompleteResult.Aborted a -> {
        specs.remove(claim.uid());
        syncEffects();
        return new PrepareOutcome.Refused("claim " + claim + " was unprepared while its prepare was running",
            a.tombstone().expiresAt());
      }
      case CompleteResult.NotStarted _ -> {
        specs.remove(claim.uid());
        syncEffects();
        return new PrepareOutcome.Failed("claim " + claim + " vanished from the ledger while its prepare was running");
      }
    }
  }

  /** Unprepares {@code claim}; idempotent, needs nothing but the ledger. */
  public UnprepareOutcome unprepare(ClaimRef claim) throws IOException {
    var uid = claim.uid();
    var result = durable.ledger().unprepare(claim);
    durable.persist(); // also when unchanged: a concurrent caller's tombstone may not be synced yet
    if (!(result instanceof UnprepareResult.AlreadyUnprepared)) {
      specs.remove(uid);
    }
    var outcome = syncEffects();
    if (result instanceof UnprepareResult.Released r) {
      LOG.info("unprepared claim {} ({} was {})", r.previous().claim(), r.previous().devices(),
          r.previous().stateName());
    }
    return new UnprepareOutcome(result, outcome.errors());
  }

  /** Brings side effects in line with the ledger as it is when the reconciler runs. */
  public EffectsReconciler.Outcome syncEffects() {
    var outcome = effects.reconcile(() -> NodeEffects.of(durable.ledger().snapshot()));
    if (!outcome.ok()) {
      LOG.warn("node side effects not in line with the ledger: {}", outcome.errors());
    }
    return outcome;
  }

  /** Removes CDI specs of claims the ledger does not hold (left by a crash between persist and removal). */
  public List<String> removeOrphanSpecs() throws IOException {
    var holding = durable.ledger().snapshot().holding().stream().map(c -> c.claim().uid()).toList();
    var removed = new ArrayList<String>();
    for (var uid : specs.claimUids()) {
      if (!holding.contains(uid)) {
        specs.remove(uid);
        removed.add(uid);
      }
    }
    if (!removed.isEmpty()) {
      LOG.info("removed CDI specs of claims the ledger does not hold: {}", removed);
    }
    return removed;
  }
}
