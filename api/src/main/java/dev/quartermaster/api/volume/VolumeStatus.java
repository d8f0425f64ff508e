package dev.quartermaster.api.volume;

import dev.quartermaster.api.meta.Condition;
import java.util.List;

/**
 * @param externalId the plugin's id for the volume once created
 * @param claims the tasks holding the volume, each with its release state
 */
public record VolumeStatus(String externalId, List<VolumeClaim> claims, List<Condition> conditions) {
  public static final VolumeStatus EMPTY = new VolumeStatus("", List.of(), List.of());

  public VolumeStatus {
    externalId = externalId == null ? "" : externalId;
    claims = claims == null ? List.of() : List.copyOf(claims);
    conditions = conditions == null ? List.of() : List.copyOf(conditions);
  }
}
