package dev.quartermaster.agent.cdi;

import java.util.List;

/**
 * The CDI edits of a set of devices, merged in order: environment entries ({@code K=V}) and device
 * nodes.
 */
public record ContainerEdits(List<String> env, List<CdiDeviceNode> deviceNodes) {
  public ContainerEdits {
    env = List.copyOf(env);
    deviceNodes = List.copyOf(deviceNodes);
  }

  /**
   * What CDI cannot say, composed from exactly these devices' own entries ({@link
   * DeviceVariables#composed}): for a runtime to set after the task's environment, before {@link
   * #env}.
   */
  public List<String> composedEnv() {
    return DeviceVariables.composed(env);
  }
}
