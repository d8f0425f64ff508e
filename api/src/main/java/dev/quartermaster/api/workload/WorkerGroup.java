package dev.quartermaster.api.workload;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * Identical workers named {@code <workload>-<group>-<ordinal>}.
 *
 * @param replicas how many live tasks the group has; required
 * @param template what each task runs
 * @param claimTemplates one claim per task per template, owned by the task
 */
public record WorkerGroup(
    String name,
    @JsonProperty(required = true) int replicas,
    TaskTemplate template,
    List<ClaimTemplate> claimTemplates,
    RestartPolicy restartPolicy) {
  public WorkerGroup {
    name = name == null ? "" : name;
    template = template == null ? TaskTemplate.EMPTY : template;
    claimTemplates = claimTemplates == null ? List.of() : List.copyOf(claimTemplates);
    restartPolicy = restartPolicy == null ? RestartPolicy.OnFailure : restartPolicy;
  }
}
