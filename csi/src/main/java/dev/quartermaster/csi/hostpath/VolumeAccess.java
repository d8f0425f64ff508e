package dev.quartermaster.csi.hostpath;

import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import java.util.Objects;

/**
 * One requested volume capability: the access mode and whether it is a raw block device (else a
 * mount).
 */
public record VolumeAccess(AccessMode mode, boolean block) {
  public VolumeAccess {
    Objects.requireNonNull(mode, "mode");
  }

  public static VolumeAccess mount(AccessMode mode) {
    return new VolumeAccess(mode, false);
  }
}
