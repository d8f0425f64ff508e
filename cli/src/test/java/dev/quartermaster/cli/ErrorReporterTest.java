package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

class ErrorReporterTest {

  private static String report(Throwable e, boolean debug) {
    var text = new StringWriter();
    ErrorReporter.report(e, new PrintWriter(text, true), debug);
    return text.toString();
  }

  @Test
  void oneViolationStaysOnOneLine() {
    var e =
        ApiException.invalid(
            "workload/train", List.of(new Violation("spec.groups[0].replicas", "must be >= 0")));

    assertThat(report(e, false))
        .isEqualTo("error: workload/train is invalid: spec.groups[0].replicas: must be >= 0\n");
  }

  @Test
  void severalViolationsGetALineEach() {
    var e =
        ApiException.invalid(
            "workload/train",
            List.of(
                new Violation("spec.groups[0].replicas", "must be >= 0"),
                new Violation("spec.groups[0].template.command", "must not be empty")));

    assertThat(report(e, false))
        .isEqualTo(
            """
        error: workload/train is invalid
          spec.groups[0].replicas: must be >= 0
          spec.groups[0].template.command: must not be empty
        """);
  }

  @Test
  void otherApiErrorsPrintTheirMessage() {
    assertThat(
            report(
                new ApiException(
                    Reason.Conflict,
                    "task/t was modified since revision 3; read it again and retry"),
                false))
        .isEqualTo("error: task/t was modified since revision 3; read it again and retry\n");
  }

  @Test
  void unexpectedFailuresSayHowToSeeMore() {
    assertThat(report(new IllegalStateException("boom"), false))
        .isEqualTo("error: boom (run with --debug for the stack trace)\n");
    assertThat(report(new IllegalStateException("boom"), true))
        .startsWith("error: boom\njava.lang.IllegalStateException: boom\n");
  }
}
