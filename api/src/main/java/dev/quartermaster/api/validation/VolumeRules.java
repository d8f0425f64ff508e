package dev.quartermaster.api.validation;

import dev.quartermaster.api.volume.VolumeSpec;

/** Rules for volumes. */
final class VolumeRules {
  private VolumeRules() {}

  static void volume(VolumeSpec spec, Violations v) {
    v.dnsSubdomain("spec.plugin", spec.plugin());
    v.check(spec.capacityBytes() > 0, "spec.capacityBytes", "must be > 0");
    spec.parameters().keySet().forEach(k -> v.check(Names.isQualifiedName(k), "spec.parameters." + k,
        "must be a qualified name"));
  }
}
