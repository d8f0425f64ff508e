package dev.quartermaster.agent;

import dev.quartermaster.agent.devices.NodeDevices;
import dev.quartermaster.agent.mig.MigControl;
import dev.quartermaster.agent.mig.MigModeChanges;
import dev.quartermaster.agent.node.MigReady;
import dev.quartermaster.agent.node.NodeStatusWriter;
import dev.quartermaster.agent.prepare.ClaimPreparer;
import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.api.event.EventType;
import dev.quartermaster.api.event.InvolvedObject;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.MigMode;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An agent's MIG mode pass, run before each publish of its device slice: the operator's wish read
 * from the node's spec, a GPU's mode switched where nothing holds it, and what it did said where
 * users look (events, the {@code MigReady} condition).
 */
final class MigModePass {
  private static final Logger LOG = LoggerFactory.getLogger(MigModePass.class);

  private final NodeAgentConfig config;
  private final ClaimPreparer preparer;
  private final NodeDevices devices;
  private final EventRecorder recorder;
  private final NodeStatusWriter status;

  /** Per GPU whose MIG mode waits, why, as last reported (an event only when that changes). */
  private final Map<String, String> waits = new HashMap<>();

  /**
   * The last {@code MigReady} condition, written with every status; empty until MIG concerns it.
   */
  private volatile Optional<Condition> ready = Optional.empty();

  MigModePass(
      NodeAgentConfig config,
      ClaimPreparer preparer,
      NodeDevices devices,
      EventRecorder recorder,
      NodeStatusWriter status) {
    this.config = config;
    this.preparer = preparer;
    this.devices = devices;
    this.recorder = recorder;
    this.status = status;
  }

  /** The {@code MigReady} condition as last decided; empty until MIG concerns this node. */
  Optional<Condition> condition() {
    return ready;
  }

  /**
   * Takes the operator's MIG wish from this node's spec (as the last status write saw it) and
   * changes a GPU's mode where nothing holds it; what it switched and what waits, or nothing if the
   * wish could not be read.
   */
  Optional<MigModeChanges> apply() {
    var mig = preparer.mig();
    if (mig.control() == MigControl.NONE) {
      // No MIG here (no driver control: a host where NVML's MIG calls are not wired, a simulated
      // node without MIG): nothing to read or switch, and no store read a publish did not make
      // before MIG existed.
      return Optional.empty();
    }
    try {
      // The spec as the heartbeat's status write just took it (a publish follows each beat), as the
      // sharing wish is read: a read of the Node here was a beat's second request.
      status
          .lastSpec()
          .or(() -> config.api().get(Kinds.NODE, config.nodeName()).map(n -> n.spec()))
          .ifPresent(spec -> mig.wish(spec.mig()));
    } catch (RuntimeException e) {
      LOG.warn("node {}: cannot read its MIG wish: {}", config.nodeName(), e.getMessage());
      return Optional.empty();
    }
    var changes = mig.applyModes(preparer.heldDevices(), devices.inventory().gpus());
    preparer.syncMig();
    return Optional.of(changes);
  }

  /**
   * Says what the pass did where users look: an event per GPU switched and per GPU that starts
   * waiting (or waits for other claims), and the {@code MigReady} condition, written at once when
   * it changed rather than at the next heartbeat.
   */
  void report(MigModeChanges changes, List<String> notes) {
    var involved = new InvolvedObject(Kinds.NODE.name(), config.nodeName());
    var wish = preparer.mig().wish();
    changes
        .switched()
        .forEach(
            (gpu, on) -> {
              var what =
                  gpu
                      + (on
                          ? ": MIG mode on (" + wish.getOrDefault(gpu, MigMode.Dynamic) + ")"
                          : ": MIG mode off; the GPU is offered whole");
              LOG.info("node {}: {}", config.nodeName(), what);
              recorder.record(involved, EventType.Normal, "MigModeChanged", what);
            });
    changes
        .waiting()
        .forEach(
            (gpu, why) -> {
              if (!why.equals(waits.put(gpu, why))) {
                LOG.info("node {}: {}", config.nodeName(), why);
                recorder.record(involved, EventType.Warning, MigReady.WAITING, why);
              }
            });
    waits.keySet().retainAll(changes.waiting().keySet());
    var was = ready;
    var next = MigReady.of(wish, changes, notes, was.isPresent());
    if (next.equals(was)) {
      return;
    }
    ready = next;
    next.ifPresent(
        c ->
            status.update(
                s -> s.withConditions(Condition.set(s.conditions(), c, config.env().now()))));
  }
}
