package dev.quartermaster.api.allocation;

import java.util.List;

/** One member of a gang reservation: its task (name and uid), its node, and its claims there. */
public record ReservedMember(String task, String taskUid, String node, List<ReservedClaim> claims) {
  public ReservedMember {
    task = task == null ? "" : task;
    taskUid = taskUid == null ? "" : taskUid;
    node = node == null ? "" : node;
    claims = claims == null ? List.of() : List.copyOf(claims);
  }
}
