package dev.quartermaster.agent.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.core.env.DeterministicEnv;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The node ledger's machine ({@link ClaimState}) written out as a table, apart from the code: for
 * each state a claim can be in, each thing that can happen to it, what the ledger answers and the
 * state it leaves. The test drives a real ledger through every pair and compares what it saw with
 * the table line for line, so a move added, lost or changed in {@link ClaimLedger} fails here.
 */
class ClaimLedgerTableTest {
  /** {@code from event → answer to}; {@code none}: no entry for the claim. */
  private static final String TABLE =
      """
      none              prepare         →  Started          PrepareStarted
      none              prepare-other   →  Started          PrepareStarted
      none              prepare-held    →  Held             none
      none              complete        →  NotStarted       none
      none              unprepare       →  NeverPrepared    PrepareAborted
      none              expire          →  -                none
      PrepareStarted    prepare         →  Started          PrepareStarted
      PrepareStarted    prepare-other   →  Mismatch         PrepareStarted
      PrepareStarted    prepare-held    →  Mismatch         PrepareStarted
      PrepareStarted    complete        →  Completed        PrepareCompleted
      PrepareStarted    unprepare       →  Released         PrepareAborted
      PrepareStarted    expire          →  -                PrepareStarted
      PrepareCompleted  prepare         →  AlreadyPrepared  PrepareCompleted
      PrepareCompleted  prepare-other   →  Mismatch         PrepareCompleted
      PrepareCompleted  prepare-held    →  Mismatch         PrepareCompleted
      PrepareCompleted  complete        →  Completed        PrepareCompleted
      PrepareCompleted  unprepare       →  Released         PrepareAborted
      PrepareCompleted  expire          →  -                PrepareCompleted
      PrepareAborted    prepare         →  Aborted          PrepareAborted
      PrepareAborted    prepare-other   →  Aborted          PrepareAborted
      PrepareAborted    prepare-held    →  Aborted          PrepareAborted
      PrepareAborted    complete        →  Aborted          PrepareAborted
      PrepareAborted    unprepare       →  AlreadyUnprepared PrepareAborted
      PrepareAborted    expire          →  -                none
      """;

  private static final List<String> STATES =
      List.of("none", "PrepareStarted", "PrepareCompleted", "PrepareAborted");
  private static final List<String> EVENTS =
      List.of("prepare", "prepare-other", "prepare-held", "complete", "unprepare", "expire");

  private final ClaimRef claim = new ClaimRef("aaaa-1", "claim-a");
  private final ClaimRef holder = new ClaimRef("bbbb-2", "claim-b");

  @Test
  void everyStateAndEventDoesWhatTheTableSays() {
    var seen = new TreeSet<String>();
    for (var from : STATES) {
      for (var event : EVENTS) {
        seen.add(row(from, event));
      }
    }
    var written = new TreeSet<String>();
    TABLE.strip().lines().forEach(l -> written.add(String.join(" ", l.trim().split("\\s+"))));
    assertThat(seen).containsExactlyElementsOf(written);
  }

  /** One line of the table, as a fresh ledger with {@code claim} in {@code from} answers it. */
  private String row(String from, String event) {
    var env = new DeterministicEnv(7);
    var ledger = new ClaimLedger(env, ClaimLedger.DEFAULT_TOMBSTONE_TTL);
    ledger.prepare(request(holder, "gpu-9"));
    switch (from) {
      case "none" -> {}
      case "PrepareStarted" -> ledger.prepare(request(claim, "gpu-0"));
      case "PrepareCompleted" -> {
        ledger.prepare(request(claim, "gpu-0"));
        ledger.complete(claim.uid(), List.of("cdi/gpu=0"));
      }
      case "PrepareAborted" -> {
        ledger.prepare(request(claim, "gpu-0"));
        ledger.unprepare(claim);
      }
      default -> throw new IllegalArgumentException(from);
    }
    Object answer =
        switch (event) {
          case "prepare" -> ledger.prepare(request(claim, "gpu-0"));
          case "prepare-other" -> ledger.prepare(request(claim, "gpu-1"));
          case "prepare-held" -> ledger.prepare(request(claim, "gpu-9"));
          case "complete" -> ledger.complete(claim.uid(), List.of("cdi/gpu=0"));
          case "unprepare" -> ledger.unprepare(claim);
          case "expire" -> {
            env.advance(ClaimLedger.DEFAULT_TOMBSTONE_TTL.plusSeconds(1));
            ledger.pruneExpired();
            yield null;
          }
          default -> throw new IllegalArgumentException(event);
        };
    var name = answer == null ? "-" : answer.getClass().getSimpleName();
    var to = ledger.entry(claim.uid()).map(ClaimState::stateName).orElse("none");
    return from + " " + event + " → " + name + " " + to;
  }

  private static PrepareRequest request(ClaimRef c, String device) {
    return new PrepareRequest(c, List.of(device), Optional.empty());
  }
}
