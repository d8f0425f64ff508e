package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The lint that {@link MetricsUpTest} relies on really complains: a deliberately naive exposition,
 * as a hand-rolled exporter would write it (a counter without {@code _total}, a latency in
 * milliseconds), is refused, and the same metrics named by the conventions pass.
 */
class PromtoolLintTest {
  static final String NAIVE =
      """
      # HELP qm_claims_allocated claims allocated
      # TYPE qm_claims_allocated counter
      qm_claims_allocated 3
      # HELP qm_allocation_latency_milliseconds time to allocate
      # TYPE qm_allocation_latency_milliseconds gauge
      qm_allocation_latency_milliseconds 12
      """;

  static final String CONVENTIONAL =
      """
      # HELP qm_claims_allocated_total claims allocated
      # TYPE qm_claims_allocated_total counter
      qm_claims_allocated_total 3
      # HELP qm_allocation_latency_seconds time to allocate
      # TYPE qm_allocation_latency_seconds gauge
      qm_allocation_latency_seconds 0.012
      """;

  @Test
  void aCounterWithoutTotalAndAMillisecondUnitAreRefused() throws Exception {
    var promtool = Promtool.require();
    var verdict = Promtool.check(promtool, NAIVE);
    assertThat(verdict.exit()).as(verdict.output()).isNotZero();
    assertThat(verdict.output())
        .contains("qm_claims_allocated")
        .contains("_total")
        .contains("qm_allocation_latency_milliseconds");
  }

  @Test
  void theSameMetricsNamedByTheConventionsPass() throws Exception {
    var promtool = Promtool.require();
    var verdict = Promtool.check(promtool, CONVENTIONAL);
    assertThat(verdict.exit()).as(verdict.output()).isZero();
    assertThat(verdict.output()).isBlank();
  }
}
