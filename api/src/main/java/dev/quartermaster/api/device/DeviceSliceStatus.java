package dev.quartermaster.api.device;

/** A slice has no observed state of its own: the agent writes what it found into the spec. */
public record DeviceSliceStatus() {
  public static final DeviceSliceStatus EMPTY = new DeviceSliceStatus();
}
