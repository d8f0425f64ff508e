package dev.quartermaster.api.device;

import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;

/** A named selector over devices, which claims request by name (e.g. {@code a100-80g}). */
public record DeviceClass(ObjectMeta metadata, DeviceClassSpec spec, DeviceClassStatus status)
    implements ApiObject {
  public DeviceClass {
    metadata = metadata == null ? ObjectMeta.named("") : metadata;
    spec = spec == null ? DeviceClassSpec.EMPTY : spec;
    status = status == null ? DeviceClassStatus.EMPTY : status;
  }

  @Override
  public DeviceClass withMetadata(ObjectMeta m) {
    return new DeviceClass(m, spec, status);
  }

  @Override
  public DeviceClass withStatusOf(ApiObject other) {
    return new DeviceClass(metadata, spec, ((DeviceClass) other).status);
  }

  @Override
  public Kind<DeviceClass> kind() {
    return Kinds.DEVICE_CLASS;
  }
}
