package dev.quartermaster.agent.volumes;

import dev.quartermaster.agent.runtime.Mount;
import dev.quartermaster.api.volume.VolumeUse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A volume published for a task: the use from its spec and the node path it was published at. */
public record MountedVolume(VolumeUse use, String target) {

  /**
   * For {@code exec}: {@code QM_VOLUME_<MOUNTAS>=<target>} per volume, added to the task's own env.
   */
  public static Map<String, String> env(Map<String, String> taskEnv, List<MountedVolume> volumes) {
    var env = new TreeMap<>(taskEnv);
    volumes.forEach(v -> env.put(v.use().envName(), v.target()));
    return env;
  }

  /**
   * For {@code podman}: a bind mount of each target at {@code /volumes/<mountAs>}, read-only where
   * the use is.
   */
  public static List<Mount> mounts(List<MountedVolume> volumes) {
    return volumes.stream()
        .map(
            v ->
                new Mount(Path.of(v.target()), "/volumes/" + v.use().mountAs(), v.use().readOnly()))
        .toList();
  }
}
