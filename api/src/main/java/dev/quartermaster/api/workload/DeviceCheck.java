package dev.quartermaster.api.workload;

import java.util.List;
import java.util.Optional;

/**
 * The runtime opened every device node the task was given before the task counted as Running.
 *
 * @param opened the paths that opened
 * @param failure the first path that did not, with the error (e.g. "/dev/nvidia-uvm: Operation not
 *     permitted")
 */
public record DeviceCheck(boolean passed, List<String> opened, Optional<String> failure) {
  public DeviceCheck {
    opened = opened == null ? List.of() : List.copyOf(opened);
    failure = failure == null ? Optional.empty() : failure;
  }
}
