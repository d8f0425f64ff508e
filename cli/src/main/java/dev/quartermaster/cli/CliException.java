package dev.quartermaster.cli;

import java.util.List;

/**
 * A failure the user can act on, reported as {@code error: <message>} and exit code 1, without a
 * stack trace. {@code details} are printed one per indented line below it.
 */
public final class CliException extends RuntimeException {
  private final List<String> details;

  public CliException(String message) {
    this(message, List.of());
  }

  public CliException(String message, List<String> details) {
    super(message);
    this.details = List.copyOf(details);
  }

  public List<String> details() {
    return details;
  }
}
