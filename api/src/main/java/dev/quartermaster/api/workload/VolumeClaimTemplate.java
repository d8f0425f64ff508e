package dev.quartermaster.api.workload;

import dev.quartermaster.api.volume.VolumeSpec;

/**
 * One volume per task slot: the workload controller creates {@code
 * <workload>-<group>-<ordinal>-<name>} from {@code spec} before the slot's first task, owned by the
 * workload (not the task), so a replaced task finds its volume again. Each task of the group writes
 * its own and sees it as {@code name}.
 */
public record VolumeClaimTemplate(String name, VolumeSpec spec) {
  public VolumeClaimTemplate {
    name = name == null ? "" : name;
    spec = spec == null ? VolumeSpec.EMPTY : spec;
  }
}
