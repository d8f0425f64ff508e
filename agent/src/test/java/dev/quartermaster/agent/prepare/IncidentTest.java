package dev.quartermaster.agent.prepare;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.prepare.IncidentScenarios.Op;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * NVIDIA issue #641, deterministically: a new claim's prepare arrives before the old claim's
 * unprepare, in every order and with retries. The same scenarios run against the real ledger (no
 * violation allowed) and against a naive ledger kept in test code (violations must be found, or the
 * test proves nothing).
 */
class IncidentTest {
  private static final long SEED = Long.getLong("qm.seed", 641L);

  enum Implementation {
    REAL(true),
    NAIVE(false);

    final boolean mustHold;

    Implementation(boolean mustHold) {
      this.mustHold = mustHold;
    }

    Supplier<NodeUnderTest> nodes(long seed) {
      return this == REAL ? () -> new RealNode(seed) : NaiveNode::new;
    }
  }

  @ParameterizedTest
  @EnumSource(Implementation.class)
  void everyOrderOfTheIncidentWithRetriesAndRestarts(Implementation impl) {
    var scenarios = IncidentScenarios.exhaustive();
    assertThat(scenarios).hasSize(30 + 30 * 6);
    var violations = runAll(impl, scenarios);
    if (impl.mustHold) {
      assertThat(violations).as("violations with seed %d", SEED).isEmpty();
    } else {
      assertThat(violations).as("the naive ledger must be caught").isNotEmpty();
      assertThat(violations).anyMatch(v -> v.startsWith("I1:"));
      assertThat(violations).anyMatch(v -> v.startsWith("I2:"));
      assertThat(violations).anyMatch(v -> v.startsWith("B prepared before A was unprepared"));
    }
  }

  @ParameterizedTest
  @EnumSource(Implementation.class)
  void randomSequencesFromASeed(Implementation impl) {
    var violations = runAll(impl, IncidentScenarios.random(SEED, 2000));
    if (impl.mustHold) {
      assertThat(violations)
          .as("violations with seed %d (replay with -Dqm.seed=%d)", SEED, SEED)
          .isEmpty();
    } else {
      assertThat(violations).as("the naive ledger must be caught").isNotEmpty();
    }
  }

  @Test
  void theExactIncidentOrderIsCaughtOnTheNaiveLedgerAndHeldOnTheRealOne() {
    // A prepared; B prepared early (0.4 s after the force-delete); A unprepared late (2.5 s).
    var incident = List.of(Op.PREPARE_B, Op.UNPREPARE_A);
    assertThat(IncidentScenarios.run(Implementation.NAIVE.nodes(SEED), incident))
        .anyMatch(v -> v.startsWith("I2:") && v.contains("not published"));
    assertThat(IncidentScenarios.run(Implementation.REAL.nodes(SEED), incident)).isEmpty();
  }

  @Test
  void aStaleRetryAfterUnprepareIsRefusedOnTheRealLedger() {
    var stale = List.of(Op.UNPREPARE_A, Op.PREPARE_A, Op.RESTART, Op.PREPARE_A, Op.PREPARE_B);
    assertThat(IncidentScenarios.run(Implementation.REAL.nodes(SEED), stale)).isEmpty();
    assertThat(IncidentScenarios.run(Implementation.NAIVE.nodes(SEED), stale))
        .anyMatch(v -> v.contains("resurrected"));
  }

  private static List<String> runAll(Implementation impl, List<List<Op>> scenarios) {
    var violations = new ArrayList<String>();
    long i = 0;
    for (var ops : scenarios) {
      violations.addAll(IncidentScenarios.run(impl.nodes(SEED + i++), ops));
    }
    return violations;
  }
}
