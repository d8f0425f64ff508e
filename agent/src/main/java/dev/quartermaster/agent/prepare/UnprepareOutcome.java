package dev.quartermaster.agent.prepare;

import dev.quartermaster.agent.ledger.UnprepareResult;
import java.util.List;

/**
 * An unprepare is always done once the ledger's tombstone is durable; {@code effectErrors} lists
 * side effects that could not be brought in line yet (retried by the caller).
 */
public record UnprepareOutcome(UnprepareResult result, List<String> effectErrors) {
  public UnprepareOutcome {
    effectErrors = List.copyOf(effectErrors);
  }
}
