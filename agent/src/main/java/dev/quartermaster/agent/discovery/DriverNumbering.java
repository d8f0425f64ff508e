package dev.quartermaster.agent.discovery;

import java.nio.file.Path;
import java.util.Objects;

/**
 * nvidia-modprobe's numbering on a real host: {@code nvidiactl} 255 and {@code nvidia-modeset} 254
 * under the {@code nvidia} (else {@code nvidia-frontend}) major, {@code nvidia<N>} N under it too,
 * {@code nvidia-uvm} 0 and {@code nvidia-uvm-tools} 1 under the dynamic {@code nvidia-uvm} major,
 * {@code nvidia-caps-imex-channels/channel<N>} N under the dynamic {@code
 * nvidia-caps-imex-channels} major.
 */
public record DriverNumbering(ProcDevices devices, Path source) implements Numbering {

  public DriverNumbering {
    Objects.requireNonNull(devices, "devices");
    Objects.requireNonNull(source, "source");
  }

  @Override
  public Expected control(ControlNode node) {
    var major =
        node.driver().equals(ProcDevices.NVIDIA)
            ? devices.nvidiaMajor()
            : devices.major(node.driver());
    if (major.isEmpty()) {
      return new Expected.Unknown(
          source
              + " lists no "
              + driverText(node.driver())
              + " major"
              + (node.driver().equals(ProcDevices.NVIDIA_UVM)
                  ? " (the nvidia-uvm module is not loaded)"
                  : " (the NVIDIA driver is not loaded)"));
    }
    return new Expected.Known(NodeExpectation.charDevice(major.getAsLong(), node.minor()));
  }

  @Override
  public Expected gpu(long minor) {
    var major = devices.nvidiaMajor();
    if (major.isEmpty()) {
      return new Expected.Unknown(
          source + " lists no nvidia or nvidia-frontend major (the NVIDIA driver is not loaded)");
    }
    return new Expected.Known(NodeExpectation.charDevice(major.getAsLong(), minor));
  }

  @Override
  public Expected channel(long id) {
    var major = devices.imexChannelsMajor();
    if (major.isEmpty()) {
      return new Expected.Unknown(
          source
              + " lists no "
              + ProcDevices.NVIDIA_CAPS_IMEX_CHANNELS
              + " major (the NVIDIA driver offers no IMEX channels)");
    }
    return new Expected.Known(NodeExpectation.charDevice(major.getAsLong(), id));
  }

  private static String driverText(String driver) {
    return driver.equals(ProcDevices.NVIDIA) ? "nvidia or nvidia-frontend" : driver;
  }
}
