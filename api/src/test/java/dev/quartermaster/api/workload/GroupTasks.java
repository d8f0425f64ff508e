package dev.quartermaster.api.workload;

import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.meta.OwnerReference;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Worker group {@code w} of workload {@value #WORKLOAD} (uid {@value #UID}) and its tasks, as the
 * tests of what a group's tasks decide write them (here and, through the api's test-jar, in {@code
 * control}).
 */
public final class GroupTasks {
  public static final String WORKLOAD = "train";
  public static final String UID = "w-uid";
  public static final String GROUP = "w";

  private GroupTasks() {}

  /** Group {@value #GROUP} of {@code replicas}, no claims, restarted by {@code policy}. */
  public static WorkerGroup group(int replicas, RestartPolicy policy) {
    var template =
        new TaskTemplate(List.of("train"), Map.of(), "exec", Optional.empty(), List.of(), Map.of());
    return new WorkerGroup(GROUP, replicas, template, List.of(), policy);
  }

  /** The group's task at {@code ordinal}, owned by the workload of uid {@code ownerUid}. */
  public static Task task(int ordinal, String ownerUid, TaskPhase phase, boolean deleting) {
    var meta =
        ObjectMeta.named(TaskNames.task(WORKLOAD, GROUP, ordinal))
            .withUid("t" + ordinal)
            .withOwner(new OwnerReference("Workload", WORKLOAD, ownerUid));
    if (deleting) {
      meta = meta.withDeletedAt(Instant.parse("2026-03-01T12:00:00Z"));
    }
    var status =
        new TaskStatus(
            phase,
            "",
            "",
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            List.of());
    return new Task(meta, null, status);
  }

  /** The group's task at {@code ordinal}, of this workload ({@value #UID}), not being deleted. */
  public static Task ours(int ordinal, TaskPhase phase) {
    return task(ordinal, UID, phase, false);
  }
}
