package dev.quartermaster.cli.output;

/** What {@code qm get -o} prints. */
public enum OutputFormat {
  TABLE,
  WIDE,
  YAML,
  JSON,
  /** {@code kind/name}, a line each: what a script pipes on ({@code qm get tasks -o name}). */
  NAME,
  /** {@code -o jsonpath=TEMPLATE}: what the template picks ({@link JsonPathTemplate}). */
  JSONPATH;

  public boolean isTable() {
    return this == TABLE || this == WIDE;
  }
}
