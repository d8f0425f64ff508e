package dev.quartermaster.agent.discovery;

import java.nio.file.Path;
import java.util.Objects;

/**
 * One device node that is not as needed: the exact host path and why, e.g. {@code missing
 * /dev/nvidia-uvm} or {@code /dev/nvidiactl is a regular file, expected a character device
 * 195:255}. {@link #message()} is what goes into a node condition and in front of a person.
 */
public record NodeProblem(Path path, Kind kind, String message) {

  /** What kind of wrong, for programs (conditions carry a CamelCase reason). */
  public enum Kind {
    /** Nothing at the path. */
    Missing,
    /** Something other than the expected character device, or the wrong number. */
    Wrong,
    /** The expected number is unknown: the driver (or its uvm module) is not registered. */
    DriverNotLoaded
  }

  public NodeProblem {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(message, "message");
  }

  @Override
  public String toString() {
    return message;
  }
}
