package dev.quartermaster.api.workload;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.quartermaster.api.gang.GangSpec;
import java.util.List;
import java.util.Optional;

/**
 * Identical workers named {@code <workload>-<group>-<ordinal>}.
 *
 * @param replicas how many live tasks the group has; required
 * @param template what each task runs
 * @param claimTemplates one claim per task per template, owned by the task
 * @param volumeClaimTemplates one volume per slot (ordinal) per template, kept across the slot's
 *     tasks
 * @param volumeRetention what happens to a slot's template volumes on scale-down or workload delete
 * @param gang whether the group's workers are placed together or not at all (empty: each on its
 *     own); in a workload whose {@code spec.gang} makes every group one gang, only its {@code
 *     minMember}: the group's share of that gang. Read through {@code WorkloadGangs}
 */
public record WorkerGroup(
    String name,
    @JsonProperty(required = true) int replicas,
    TaskTemplate template,
    List<ClaimTemplate> claimTemplates,
    RestartPolicy restartPolicy,
    List<VolumeClaimTemplate> volumeClaimTemplates,
    VolumeRetention volumeRetention,
    Optional<GangSpec> gang) {
  public WorkerGroup {
    name = name == null ? "" : name;
    template = template == null ? TaskTemplate.EMPTY : template;
    claimTemplates = claimTemplates == null ? List.of() : List.copyOf(claimTemplates);
    restartPolicy = restartPolicy == null ? RestartPolicy.OnFailure : restartPolicy;
    volumeClaimTemplates =
        volumeClaimTemplates == null ? List.of() : List.copyOf(volumeClaimTemplates);
    volumeRetention = volumeRetention == null ? VolumeRetention.Delete : volumeRetention;
    gang = gang == null ? Optional.empty() : gang;
  }

  public WorkerGroup(
      String name,
      int replicas,
      TaskTemplate template,
      List<ClaimTemplate> claimTemplates,
      RestartPolicy restartPolicy,
      List<VolumeClaimTemplate> volumeClaimTemplates,
      VolumeRetention volumeRetention) {
    this(
        name,
        replicas,
        template,
        claimTemplates,
        restartPolicy,
        volumeClaimTemplates,
        volumeRetention,
        Optional.empty());
  }

  public WorkerGroup(
      String name,
      int replicas,
      TaskTemplate template,
      List<ClaimTemplate> claimTemplates,
      RestartPolicy restartPolicy) {
    this(
        name, replicas, template, claimTemplates, restartPolicy, List.of(), VolumeRetention.Delete);
  }

  /** This group with {@code n} replicas ({@code qm scale}). */
  public WorkerGroup withReplicas(int n) {
    return new WorkerGroup(
        name,
        n,
        template,
        claimTemplates,
        restartPolicy,
        volumeClaimTemplates,
        volumeRetention,
        gang);
  }

  /** This group placed as {@code spec} says: together or not at all. */
  public WorkerGroup withGang(GangSpec spec) {
    return new WorkerGroup(
        name,
        replicas,
        template,
        claimTemplates,
        restartPolicy,
        volumeClaimTemplates,
        volumeRetention,
        Optional.of(spec));
  }
}
