package dev.quartermaster.api.validation;

import dev.quartermaster.api.volume.VolumeSpec;
import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import java.util.Set;

/** Rules for volumes, on their own and as a worker group's volume claim templates. */
final class VolumeRules {
  /** Parameters go to the plugin's CreateVolume as they are; bounded so a spec stays small. */
  static final int MAX_PARAMETERS = 64;

  static final int MAX_PARAMETER_VALUE = 1024;

  /**
   * The modes a write claim can be granted on; a claim template's volume is written by its task.
   */
  static final Set<AccessMode> WRITABLE =
      Set.of(
          AccessMode.SingleNodeWriter,
          AccessMode.MultiNodeSingleWriter,
          AccessMode.MultiNodeMultiWriter);

  private VolumeRules() {}

  static void volume(VolumeSpec spec, Violations v) {
    spec("spec", spec, v);
  }

  /** {@code spec} at {@code field} (e.g. {@code spec.groups[0].volumeClaimTemplates[1].spec}). */
  static void spec(String field, VolumeSpec spec, Violations v) {
    v.dnsSubdomain(field + ".plugin", spec.plugin());
    v.check(spec.capacityBytes() > 0, field + ".capacityBytes", "must be > 0");
    v.check(
        spec.parameters().size() <= MAX_PARAMETERS,
        field + ".parameters",
        "must have at most " + MAX_PARAMETERS + " entries");
    spec.parameters()
        .forEach(
            (k, value) -> {
              v.check(
                  Names.isQualifiedName(k), field + ".parameters." + k, "must be a qualified name");
              v.check(
                  value.length() <= MAX_PARAMETER_VALUE,
                  field + ".parameters." + k,
                  "value must be at most " + MAX_PARAMETER_VALUE + " characters");
            });
  }
}
