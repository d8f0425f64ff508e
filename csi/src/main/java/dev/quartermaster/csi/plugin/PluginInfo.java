package dev.quartermaster.csi.plugin;

import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import java.util.Set;

/**
 * What a plugin says of itself.
 *
 * @param accessModes the access modes it supports (for the hostpath plugin: single-node ones and
 *     multi-node reader-only; a plugin that does not say is assumed to support them all)
 */
public record PluginInfo(
    String name, String vendorVersion, Set<Capability> capabilities, Set<AccessMode> accessModes) {
  public PluginInfo {
    name = name == null ? "" : name;
    vendorVersion = vendorVersion == null ? "" : vendorVersion;
    capabilities = capabilities == null ? Set.of() : Set.copyOf(capabilities);
    accessModes = accessModes == null ? Set.of() : Set.copyOf(accessModes);
  }

  public boolean has(Capability c) {
    return capabilities.contains(c);
  }
}
