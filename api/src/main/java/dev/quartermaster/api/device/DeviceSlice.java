package dev.quartermaster.api.device;

import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;

/** The devices one node offers, as its agent found them. */
public record DeviceSlice(ObjectMeta metadata, DeviceSliceSpec spec, DeviceSliceStatus status)
    implements ApiObject {
  public DeviceSlice {
    metadata = metadata == null ? ObjectMeta.named("") : metadata;
    spec = spec == null ? DeviceSliceSpec.EMPTY : spec;
    status = status == null ? DeviceSliceStatus.EMPTY : status;
  }

  @Override
  public DeviceSlice withMetadata(ObjectMeta m) {
    return new DeviceSlice(m, spec, status);
  }

  @Override
  public DeviceSlice withStatusOf(ApiObject other) {
    return new DeviceSlice(metadata, spec, ((DeviceSlice) other).status);
  }

  @Override
  public Kind<DeviceSlice> kind() {
    return Kinds.DEVICE_SLICE;
  }
}
