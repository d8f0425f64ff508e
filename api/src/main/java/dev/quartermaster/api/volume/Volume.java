package dev.quartermaster.api.volume;

import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;

/** A CSI volume and who holds it. */
public record Volume(ObjectMeta metadata, VolumeSpec spec, VolumeStatus status)
    implements ApiObject {
  /**
   * Set by the server on every new volume; removed by the volume controller only once no claim is
   * left and the plugin deleted it, so a delete never takes a volume from under a task.
   */
  public static final String RELEASE_FINALIZER = "volumes.quartermaster.dev/release";

  public Volume {
    metadata = metadata == null ? ObjectMeta.named("") : metadata;
    spec = spec == null ? VolumeSpec.EMPTY : spec;
    status = status == null ? VolumeStatus.EMPTY : status;
  }

  @Override
  public Volume withMetadata(ObjectMeta m) {
    return new Volume(m, spec, status);
  }

  @Override
  public Volume withStatusOf(ApiObject other) {
    return new Volume(metadata, spec, ((Volume) other).status);
  }

  public Volume withSpec(VolumeSpec s) {
    return new Volume(metadata, s, status);
  }

  public Volume withStatus(VolumeStatus s) {
    return new Volume(metadata, spec, s);
  }

  @Override
  public Kind<Volume> kind() {
    return Kinds.VOLUME;
  }
}
