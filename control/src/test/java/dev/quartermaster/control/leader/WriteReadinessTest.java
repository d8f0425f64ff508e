package dev.quartermaster.control.leader;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Every case {@code /readyz} tells apart, as a table: what the elector knows → the answer. */
class WriteReadinessTest {
  private static final Duration DEADLINE = Duration.ofSeconds(10);
  private static final Term TWO = new Term(2, "/leases/controllers/term", 40);
  private static final Term THREE = new Term(3, "/leases/controllers/term", 75);

  private static WriteReadiness judge(
      boolean holds, Optional<Term> term, long sinceMs, Optional<Term> writing, long fenced) {
    return WriteReadiness.judge(
        new LeaderElector.Standing(holds, term, Duration.ofMillis(sinceMs), DEADLINE),
        writing,
        fenced);
  }

  @Test
  void table() {
    record Row(WriteReadiness got, boolean leading, boolean ready, String message) {}
    var rows =
        new Row[] {
          new Row(
              judge(false, Optional.empty(), 0, Optional.empty(), 0),
              false,
              true,
              "the controllers stand by: another server's lead, or none has yet"),
          new Row(
              judge(false, Optional.of(TWO), 30_000, Optional.of(TWO), 3),
              false,
              true,
              "the controllers stand by: the term of epoch 2 ended"),
          new Row(
              judge(true, Optional.of(THREE), 1_000, Optional.of(THREE), 0),
              true,
              true,
              "the controllers lead: epoch 3, writes fenced at revision 75 of"
                  + " /leases/controllers/term"),
          new Row(
              judge(true, Optional.of(THREE), 12_300, Optional.of(THREE), 0),
              true,
              false,
              "the controllers cannot write: no lease renewal for 12300 ms (the renew deadline is"
                  + " 10000 ms): the store does not answer, or this process was paused"),
          new Row(
              judge(true, Optional.of(THREE), 1_000, Optional.of(TWO), 0),
              true,
              false,
              "the controllers cannot write: they write under epoch 2's token while this process"
                  + " leads epoch 3"),
          new Row(
              judge(true, Optional.of(THREE), 1_000, Optional.empty(), 0),
              true,
              false,
              "the controllers cannot write: they write under no term while this process leads"
                  + " epoch 3"),
          new Row(
              judge(true, Optional.of(THREE), 1_000, Optional.of(THREE), 2_601),
              true,
              false,
              "the controllers cannot write: the store refused 2601 of their writes as fenced"
                  + " since epoch 3 began (a newer term began elsewhere)"),
        };
    for (var row : rows) {
      assertThat(row.got())
          .isEqualTo(new WriteReadiness(row.leading(), row.ready(), row.message()));
    }
  }
}
