package dev.quartermaster.api.validation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.workload.Workload;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code spec.startTimeoutSeconds} (issue 44): how long an admitted workload may take until its
 * tasks run before its quota goes back. A value out of range is refused naming the field and the
 * rule; none means the default of five minutes.
 */
class StartTimeoutRulesTest {
  private static final String RULE =
      "must be from 10 to 86400 (seconds an admitted workload may take until its tasks run, before"
          + " its quota goes back)";

  private static Workload workload(String timeout) {
    var yaml =
        """
        kind: Workload
        metadata: {name: job}
        spec:
          %s
          groups:
          - name: workers
            replicas: 2
            template: {command: [work]}
        """
            .formatted(timeout);
    return (Workload) ObjectCodec.fromYaml(yaml).getFirst();
  }

  @Test
  void aTimeoutOutOfRangeIsRefusedNamingTheFieldAndTheRule() {
    for (var bad : List.of("0", "9", "-5", "86401")) {
      assertThat(ObjectValidator.validate(workload("startTimeoutSeconds: " + bad)))
          .as(bad)
          .containsExactly(new Violation("spec.startTimeoutSeconds", RULE));
    }
    for (var good : List.of("10", "300", "86400")) {
      assertThat(ObjectValidator.validate(workload("startTimeoutSeconds: " + good)))
          .as(good)
          .isEmpty();
    }
  }

  @Test
  void noneMeansFiveMinutes() {
    var w = workload("queue: default");
    assertThat(ObjectValidator.validate(w)).isEmpty();
    assertThat(w.spec().startTimeout()).isEqualTo(Duration.ofMinutes(5));
    assertThat(workload("startTimeoutSeconds: 45").spec().startTimeout())
        .isEqualTo(Duration.ofSeconds(45));
  }
}
