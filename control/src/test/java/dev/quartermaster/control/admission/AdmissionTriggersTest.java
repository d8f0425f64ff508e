package dev.quartermaster.control.admission;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A mark's wait grows with its cohort's ledger, so its marks cost alike at any size. */
class AdmissionTriggersTest {
  @Test
  void aMarkWaitsASecondInASmallCohortAndLongerInALargeOneUpToHalfAMinute() {
    assertThat(AdmissionTriggers.marksWait(0)).isEqualTo(Duration.ofSeconds(1));
    assertThat(AdmissionTriggers.marksWait(100)).isEqualTo(Duration.ofSeconds(1));
    assertThat(AdmissionTriggers.marksWait(250)).isEqualTo(Duration.ofMillis(2_500));
    assertThat(AdmissionTriggers.marksWait(1_000)).isEqualTo(Duration.ofSeconds(10));
    assertThat(AdmissionTriggers.marksWait(5_000)).isEqualTo(Duration.ofSeconds(30));
  }
}
