package dev.quartermaster.agent.runtime;

import dev.quartermaster.api.validation.Names;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Everything a runtime needs to start one task.
 *
 * @param name the task's name (a DNS label); containers are named after it
 * @param command the program and its arguments
 * @param env the task's own environment; the device variables composed from {@code cdiDevices}
 *     ({@link dev.quartermaster.agent.cdi.DeviceVariables}) and then CDI {@code containerEdits.env}
 *     are applied after it
 * @param cdiDevices fully qualified CDI names ({@code quartermaster.dev/gpu=<claim-uid>-gpu-0}):
 *     the devices of the task's claims; every device node their specs list is opened by the device
 *     check before the task counts as running
 * @param mounts bind mounts (volumes)
 * @param image the task's file system
 * @param output where the task's stdout and stderr go (created or truncated)
 */
public record TaskLaunch(
    String name,
    List<String> command,
    Map<String, String> env,
    List<String> cdiDevices,
    List<Mount> mounts,
    TaskImage image,
    Path output) {

  public TaskLaunch {
    Objects.requireNonNull(name, "name");
    if (!Names.isDnsLabel(name)) {
      throw new IllegalArgumentException("task name '" + name + "': " + Names.DNS_LABEL_RULE);
    }
    command = List.copyOf(command);
    if (command.isEmpty()) {
      throw new IllegalArgumentException("task " + name + ": command must not be empty");
    }
    env = new TreeMap<>(env);
    for (var key : env.keySet()) {
      if (!Names.isEnvName(key)) {
        throw new IllegalArgumentException(
            "task " + name + ": '" + key + "' is not an environment variable name");
      }
    }
    env = Map.copyOf(env);
    cdiDevices = List.copyOf(cdiDevices);
    mounts = List.copyOf(mounts);
    Objects.requireNonNull(image, "image");
    Objects.requireNonNull(output, "output");
  }
}
