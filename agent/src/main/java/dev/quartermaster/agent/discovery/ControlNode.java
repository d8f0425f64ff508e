package dev.quartermaster.agent.discovery;

import java.util.List;

/**
 * The NVIDIA control device nodes a CUDA container needs besides its GPU's own {@code
 * /dev/nvidia<N>}, with the numbers nvidia-modprobe gives them: {@code nvidiactl} and {@code
 * nvidia-modeset} under the GPU driver's major (minors 255 and 254), {@code nvidia-uvm} and {@code
 * nvidia-uvm-tools} under the dynamic {@code nvidia-uvm} major (minors 0 and 1).
 *
 * <p>Missing any required one, CUDA fails inside the container with "unknown error" (EPERM on
 * open); that is the incident this type exists for, so "required" is not negotiable here.
 */
public enum ControlNode {
  NVIDIACTL("nvidiactl", true, ProcDevices.NVIDIA, 255),
  NVIDIA_UVM("nvidia-uvm", true, ProcDevices.NVIDIA_UVM, 0),
  NVIDIA_UVM_TOOLS("nvidia-uvm-tools", true, ProcDevices.NVIDIA_UVM, 1),
  NVIDIA_MODESET("nvidia-modeset", false, ProcDevices.NVIDIA, 254);

  private final String fileName;
  private final boolean required;
  private final String driver;
  private final long minor;

  ControlNode(String fileName, boolean required, String driver, long minor) {
    this.fileName = fileName;
    this.required = required;
    this.driver = driver;
    this.minor = minor;
  }

  /** The name under the device directory, e.g. {@code nvidia-uvm}. */
  public String fileName() {
    return fileName;
  }

  /** The path inside a container, e.g. {@code /dev/nvidia-uvm}. */
  public String containerPath() {
    return "/dev/" + fileName;
  }

  /** Whether a node without it is not {@code DevicesReady}. */
  public boolean required() {
    return required;
  }

  /**
   * The /proc/devices name whose major this node uses ({@link ProcDevices#NVIDIA} stands for
   * "nvidia, else nvidia-frontend").
   */
  public String driver() {
    return driver;
  }

  /** The fixed minor nvidia-modprobe uses. */
  public long minor() {
    return minor;
  }

  public static List<ControlNode> requiredNodes() {
    return List.of(NVIDIACTL, NVIDIA_UVM, NVIDIA_UVM_TOOLS);
  }
}
