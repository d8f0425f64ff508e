package dev.quartermaster.agent.prepare;

import java.time.Instant;
import java.util.List;

/** What a prepare on this node came to, as reported in the claim's status. */
public sealed interface PrepareOutcome {

  /** Prepared, durably: containers get {@code cdiDevices}. */
  record Prepared(List<String> cdiDevices) implements PrepareOutcome {
    public Prepared {
      cdiDevices = List.copyOf(cdiDevices);
    }
  }

  /**
   * Not yet, for a reason that goes away (a device held by another claim, a helper not up). Retry.
   */
  record Waiting(String reason) implements PrepareOutcome {}

  /** Refused until {@code retryAt}: the claim was unprepared and this is a late prepare. */
  record Refused(String reason, Instant retryAt) implements PrepareOutcome {}

  /**
   * Failed for a reason retrying will not fix without a change (unknown device, allocation
   * mismatch).
   */
  record Failed(String reason) implements PrepareOutcome {}
}
