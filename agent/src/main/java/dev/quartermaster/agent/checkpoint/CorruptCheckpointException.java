package dev.quartermaster.agent.checkpoint;

import java.io.IOException;

/**
 * The checkpoint could not be trusted. The agent stops with this rather than start from an empty
 * ledger: a silent reset would forget claims whose containers still run (the kubelet never
 * re-prepares a running claim, and neither do we), and hand their devices to someone else.
 */
public final class CorruptCheckpointException extends IOException {
  private static final long serialVersionUID = 1L;

  /** What exactly is wrong. */
  public enum Problem {
    /** Not JSON, truncated, or empty. */
    MALFORMED,
    /** JSON, but not a Quartermaster ledger checkpoint. */
    NOT_A_LEDGER,
    /** Written by a format version this agent does not know. */
    UNSUPPORTED_VERSION,
    /** The payload does not match its checksum: bytes changed after writing. */
    CHECKSUM_MISMATCH,
    /**
     * Journal records that were acknowledged as durable (its mark or its header count says so) are
     * missing or no longer valid: the file was truncated, replaced or damaged after the fact, never
     * a torn write.
     */
    ACKNOWLEDGED_LOST,
    /**
     * Well-formed and checksummed, but its content breaks a rule (bad name, two holders of a
     * device).
     */
    INVALID_CONTENT
  }

  private final String location;
  private final Problem problem;

  public CorruptCheckpointException(String location, Problem problem, String detail) {
    this(location, problem, detail, null);
  }

  public CorruptCheckpointException(
      String location, Problem problem, String detail, Throwable cause) {
    super(
        "checkpoint "
            + location
            + " is unusable ("
            + problem
            + "): "
            + detail
            + ". The agent will not start from it. Inspect it with `qm agent ledger show --state DIR`;"
            + " `qm agent ledger reset --state DIR` starts over and lists what it drops.",
        cause);
    this.location = location;
    this.problem = problem;
  }

  public String location() {
    return location;
  }

  public Problem problem() {
    return problem;
  }
}
