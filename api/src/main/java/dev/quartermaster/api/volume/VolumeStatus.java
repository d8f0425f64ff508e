package dev.quartermaster.api.volume;

import dev.quartermaster.api.meta.Condition;
import java.util.List;

/**
 * @param externalId the plugin's id for the volume once created (CreateVolume's volume_id)
 * @param capacityBytes what the plugin provisioned
 * @param claims the tasks holding the volume, each with its release state
 * @param conditions e.g. {@code Ready}, {@code CallFailed} naming the CSI call and its code
 */
public record VolumeStatus(
    VolumePhase phase,
    String externalId,
    long capacityBytes,
    List<VolumeClaim> claims,
    List<Condition> conditions) {
  public static final VolumeStatus EMPTY =
      new VolumeStatus(VolumePhase.Pending, "", 0, List.of(), List.of());

  public VolumeStatus {
    phase = phase == null ? VolumePhase.Pending : phase;
    externalId = externalId == null ? "" : externalId;
    claims = claims == null ? List.of() : List.copyOf(claims);
    conditions = conditions == null ? List.of() : List.copyOf(conditions);
  }

  public VolumeStatus withClaims(List<VolumeClaim> c) {
    return new VolumeStatus(phase, externalId, capacityBytes, c, conditions);
  }

  public VolumeStatus withConditions(List<Condition> c) {
    return new VolumeStatus(phase, externalId, capacityBytes, claims, c);
  }

  public VolumeStatus withPhase(VolumePhase p) {
    return new VolumeStatus(p, externalId, capacityBytes, claims, conditions);
  }
}
