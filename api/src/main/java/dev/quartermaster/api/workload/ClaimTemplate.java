package dev.quartermaster.api.workload;

import dev.quartermaster.api.claim.ResourceClaimSpec;

/**
 * @param name the claim is named {@code <task>-<name>}
 */
public record ClaimTemplate(String name, ResourceClaimSpec spec) {
  public ClaimTemplate {
    name = name == null ? "" : name;
    spec = spec == null ? ResourceClaimSpec.EMPTY : spec;
  }
}
