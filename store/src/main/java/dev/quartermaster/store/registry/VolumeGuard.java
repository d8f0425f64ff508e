package dev.quartermaster.store.registry;

import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.api.volume.VolumeClaimMachine;
import dev.quartermaster.store.Txn.Compare;
import java.util.List;

/**
 * A volume cannot be taken from under its tasks by a plain write: every new volume carries {@link
 * Volume#RELEASE_FINALIZER}, which no write may drop while the volume still exists in its plugin or
 * has claims (an operator's {@code qm apply} of the manifest, which lists no finalizers, would
 * otherwise make the next delete immediate), the spec is fixed once created (changing the plugin
 * or the access mode under live claims would void what the claims were granted on), and a claim
 * leaves the volume's list only once {@link VolumeClaimMachine} frees it: a claim still taken, or
 * released by its node but not yet detached by the controller, holds the volume from a next writer
 * whoever writes (I5).
 */
final class VolumeGuard implements WriteRules {

  @Override
  public List<Compare> beforeWrite(Reads reads, ApiObject current, ApiObject next) {
    if (!(current instanceof Volume c) || !(next instanceof Volume n)) {
      return List.of();
    }
    if (!c.spec().equals(n.spec())) {
      throw ApiException.invalid(c.ref(), List.of(new Violation("spec",
          "is fixed once the volume exists; delete it and create a new one")));
    }
    boolean held = !c.status().claims().isEmpty() || !c.status().externalId().isEmpty();
    if (held && c.metadata().finalizers().contains(Volume.RELEASE_FINALIZER)
        && !n.metadata().finalizers().contains(Volume.RELEASE_FINALIZER)) {
      throw ApiException.invalid(c.ref(), List.of(new Violation("metadata.finalizers",
          "must keep " + Volume.RELEASE_FINALIZER + " while the volume has claims or exists in its plugin"
              + " (the volume controller removes it after DeleteVolume)")));
    }
    var dropped = c.status().claims().stream()
        .filter(was -> !VolumeClaimMachine.mayLeave(was) && n.status().claims().stream().noneMatch(now -> same(was, now)))
        .toList();
    if (!dropped.isEmpty()) {
      throw ApiException.invalid(c.ref(), List.of(new Violation("status.claims",
          "must keep the claims of " + dropped.stream().map(d -> d.task() + " (" + d.state() + ")").toList()
              + ": a claim leaves the list only once the volume controller detached it (ControllerDetached)")));
    }
    return List.of();
  }

  /** The same hold: one task incarnation's claim, on one node, in one mode (its state may have moved). */
  private static boolean same(VolumeClaim a, VolumeClaim b) {
    return a.heldBy(b.task(), b.taskUid()) && a.node().equals(b.node()) && a.mode() == b.mode();
  }
}
