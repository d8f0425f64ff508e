package dev.quartermaster.agent.names;

/**
 * A claim uid or device name that could not safely become part of a file name or a CDI device name
 * (for example {@code ../etc}, {@code a/b}, or one with a NUL). Thrown before anything is written.
 */
public final class UnsafeNameException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String field;
  private final String value;

  public UnsafeNameException(String field, String value, String rule) {
    super(field + " '" + printable(value) + "' is not safe to use in a path: " + rule);
    this.field = field;
    this.value = value;
  }

  /** Which input was rejected, e.g. {@code claim uid}. */
  public String field() {
    return field;
  }

  /** The rejected value as given. */
  public String value() {
    return value;
  }

  /** Control characters (NUL above all) are shown escaped, so the message itself stays readable. */
  private static String printable(String s) {
    var b = new StringBuilder();
    for (char c : s.toCharArray()) {
      if (c < 0x20 || c == 0x7f) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }
}
