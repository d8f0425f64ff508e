package dev.quartermaster.agent.volumes;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Where the node's CSI paths are: {@code <state>/csi/staging/<volume>} (one per volume on the node)
 * and {@code <state>/csi/publish/<task uid>/<volume>} (one per task incarnation and volume). Both
 * derive from the claim alone (volume, task uid), so a claim whose task is gone can still be
 * unpublished: the name the task sees the volume by ({@code mountAs}) is only in the task's spec,
 * and is applied where the task sees it (the env variable's name, the container path).
 */
public record VolumePaths(Path stateDir) {
  public VolumePaths {
    Objects.requireNonNull(stateDir, "stateDir");
  }

  public String staging(String volume) {
    return stateDir.resolve("csi").resolve("staging").resolve(volume).toString();
  }

  public String target(String taskUid, String volume) {
    return publishDir().resolve(taskUid).resolve(volume).toString();
  }

  /** Where every publish target of this node is, one directory per task incarnation. */
  public Path publishDir() {
    return stateDir.resolve("csi").resolve("publish");
  }

  /**
   * The task uid of {@code target} when it is a target of {@code volume} here; empty for any other
   * path.
   */
  public Optional<String> taskUidOf(String target, String volume) {
    var path = Path.of(target);
    var parent = path.getParent();
    if (parent == null
        || !path.getFileName().toString().equals(volume)
        || !publishDir().equals(parent.getParent())) {
      return Optional.empty();
    }
    return Optional.of(parent.getFileName().toString());
  }
}
