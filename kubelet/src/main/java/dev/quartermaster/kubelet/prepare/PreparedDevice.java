package dev.quartermaster.kubelet.prepare;

import java.util.List;
import java.util.Objects;

/** A device of a prepared claim as the kubelet is told of it, with the CDI ids it gets. */
public record PreparedDevice(
    String pool, String device, List<String> requestNames, List<String> cdiDeviceIds) {
  public PreparedDevice {
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(device, "device");
    requestNames = List.copyOf(requestNames);
    cdiDeviceIds = List.copyOf(cdiDeviceIds);
  }
}
