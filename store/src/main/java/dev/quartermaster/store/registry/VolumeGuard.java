package dev.quartermaster.store.registry;

import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.store.Txn.Compare;
import java.util.List;

/**
 * A volume cannot be taken from under its tasks by a plain write: every new volume carries {@link
 * Volume#RELEASE_FINALIZER}, which no write may drop while the volume still exists in its plugin or
 * has claims (an operator's {@code qm apply} of the manifest, which lists no finalizers, would
 * otherwise make the next delete immediate), and the spec is fixed once created (changing the plugin
 * or the access mode under live claims would void what the claims were granted on).
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
    return List.of();
  }
}
