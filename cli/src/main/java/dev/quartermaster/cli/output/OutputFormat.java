package dev.quartermaster.cli.output;

/** What {@code qm get -o} prints. */
public enum OutputFormat {
  TABLE,
  WIDE,
  YAML,
  JSON;

  public boolean isTable() {
    return this == TABLE || this == WIDE;
  }
}
