package dev.quartermaster.api.device;

/** A device class has no observed state. */
public record DeviceClassStatus() {
  public static final DeviceClassStatus EMPTY = new DeviceClassStatus();
}
