package dev.quartermaster.api.volume;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A task's use of one {@code Volume}: a write claim unless {@code readOnly}. In a manifest a bare
 * name is short for a writer: {@code volumes: [data]} or {@code volumes: [{name: data, readOnly:
 * true}]}.
 *
 * @param mountAs the name the task sees it by: {@code $QM_VOLUME_<MOUNTAS>} (upper case, '-' as
 *     '_') for {@code exec}, {@code /volumes/<mountAs>} for {@code podman}; defaults to {@code
 *     name}. A volume from a claim template is seen by the template's name in every task of the
 *     group.
 */
public record VolumeUse(String name, boolean readOnly, String mountAs) {
  public VolumeUse {
    name = name == null ? "" : name;
    mountAs = mountAs == null || mountAs.isEmpty() ? name : mountAs;
  }

  /** A writer of {@code name}. */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static VolumeUse writer(String name) {
    return new VolumeUse(name, false, name);
  }

  @JsonCreator(mode = JsonCreator.Mode.PROPERTIES)
  public static VolumeUse of(
      @JsonProperty("name") String name,
      @JsonProperty("readOnly") boolean readOnly,
      @JsonProperty("mountAs") String mountAs) {
    return new VolumeUse(name, readOnly, mountAs);
  }

  public static VolumeUse reader(String name) {
    return new VolumeUse(name, true, name);
  }

  public VolumeClaim.Mode mode() {
    return readOnly ? VolumeClaim.Mode.Read : VolumeClaim.Mode.Write;
  }

  /** The environment variable an {@code exec} task finds the mounted path in. */
  public String envName() {
    return "QM_VOLUME_"
        + mountAs.toUpperCase(java.util.Locale.ROOT).replace('-', '_').replace('.', '_');
  }
}
