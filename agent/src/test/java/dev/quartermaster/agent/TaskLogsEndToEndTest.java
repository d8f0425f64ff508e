package dev.quartermaster.agent;

import static dev.quartermaster.agent.AgentFixture.phaseIs;
import static dev.quartermaster.agent.AgentFixture.task;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.tasks.TaskLogs;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.TaskPhase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hole 4a through the real agent: a crash-looping task's output survives its next attempt. Each
 * start writes {@code <task>.log} afresh, so the attempt before is kept as {@code
 * <task>.previous.log} (what {@code qm logs --previous} prints). The naive agent (truncate, keep
 * nothing) is the same two attempts without the move; {@link #theNaiveLayoutLosesTheCrash} shows
 * the check catches it.
 */
class TaskLogsEndToEndTest {
  @TempDir Path tmp;
  private AgentFixture f;

  @BeforeEach
  void setUp() throws Exception {
    f = new AgentFixture(tmp);
  }

  @AfterEach
  void tearDown() throws Exception {
    f.close();
  }

  /**
   * The promise: after a second attempt, the first attempt's output is still readable on the node.
   */
  private static boolean firstAttemptReadable(Path log, String firstOutput) throws IOException {
    var previous = TaskLogs.previous(log);
    return Files.exists(previous) && Files.readString(previous).contains(firstOutput);
  }

  @Test
  void theNextAttemptKeepsThePreviousAttemptsOutput() throws Exception {
    f.api.create(
        task("crashy", List.of(), List.of("sh", "-c", "echo attempt-one failing; exit 3")));
    var failed = f.awaitTask("crashy", phaseIs(TaskPhase.Failed));
    assertThat(failed.status().exitCode()).hasValue(3);
    f.api.delete(Kinds.TASK, "crashy");
    f.awaitGone(Kinds.TASK, "crashy");

    f.api.create(task("crashy", List.of(), List.of("sh", "-c", "echo attempt-two")));
    f.awaitTask("crashy", phaseIs(TaskPhase.Succeeded));
    var log = f.agent.config().taskLog("crashy");
    assertThat(Files.readString(log)).contains("attempt-two").doesNotContain("attempt-one");
    assertThat(firstAttemptReadable(log, "attempt-one failing")).isTrue();
    assertThat(TaskLogs.previous(log))
        .isEqualTo(NodeAgentConfig.previousTaskLog(tmp.resolve("state"), "crashy"));
  }

  @Test
  void theNaiveLayoutLosesTheCrash() throws Exception {
    // Two attempts as the runtime writes them (truncating), without keeping the previous one.
    var log = tmp.resolve("naive").resolve("crashy.log");
    Files.createDirectories(log.getParent());
    Files.writeString(log, "attempt-one failing\n");
    Files.writeString(log, "attempt-two\n");
    assertThat(firstAttemptReadable(log, "attempt-one failing")).isFalse();
  }
}
