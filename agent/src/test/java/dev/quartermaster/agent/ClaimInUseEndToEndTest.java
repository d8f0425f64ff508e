package dev.quartermaster.agent;

import static dev.quartermaster.agent.AgentFixture.claim;
import static dev.quartermaster.agent.AgentFixture.phaseIs;
import static dev.quartermaster.agent.AgentFixture.prepareIs;
import static dev.quartermaster.agent.AgentFixture.prepareState;
import static dev.quartermaster.agent.AgentFixture.task;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.PrepareState;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.TaskPhase;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hole 1 (I2) through the real agent: {@code qm delete resourceclaim} under a running task. The
 * claim stays prepared (ledger, CDI spec, finalizer) and says for whom, a second claim for its GPU
 * waits; deleting the task kills its process, and only then is the claim unprepared and gone and
 * the second claim prepared. The naive rule (unprepare on deletion regardless) is caught by {@code
 * node.ClaimInUseTest}, which runs the same steps against both.
 */
class ClaimInUseEndToEndTest {
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

  @Test
  void aDeletedClaimStaysPreparedUntilItsRunningTaskIsGone() throws Exception {
    var a = f.api.create(claim("claim-a", "gpu-0"));
    f.await(Kinds.RESOURCE_CLAIM, "claim-a", prepareIs(PrepareState.Phase.Prepared));
    f.api.create(task("task-a", List.of("claim-a"), List.of("sleep", "600")));
    f.awaitTask("task-a", phaseIs(TaskPhase.Running));
    var uidA = a.metadata().uid();
    var specA = tmp.resolve("cdi").resolve("quartermaster.dev-gpu_" + uidA + ".json");

    f.api.delete(Kinds.RESOURCE_CLAIM, "claim-a");
    var kept =
        f.await(
            Kinds.RESOURCE_CLAIM,
            "claim-a",
            c -> prepareState(c).filter(s -> s.reason().startsWith("in use by")).isPresent());
    assertThat(kept.metadata().isDeleting()).isTrue();
    assertThat(kept.metadata().finalizers())
        .contains("quartermaster.dev/agent-" + AgentFixture.NODE);
    assertThat(prepareState(Optional.of(kept)).orElseThrow().phase())
        .isEqualTo(PrepareState.Phase.Prepared);
    assertThat(prepareState(Optional.of(kept)).orElseThrow().reason())
        .isEqualTo("in use by task task-a (running); unprepared when it stops");
    assertThat(f.holds(uidA)).isTrue();
    assertThat(specA).exists();

    // A second claim for the same GPU waits for the first, naming it.
    var b = f.api.create(claim("claim-b", "gpu-0"));
    var waiting = f.await(Kinds.RESOURCE_CLAIM, "claim-b", prepareIs(PrepareState.Phase.Pending));
    assertThat(prepareState(Optional.of(waiting)).orElseThrow().reason())
        .contains("gpu-0")
        .contains(uidA);
    assertThat(f.holds(uidA)).isTrue();
    assertThat(f.awaitTask("task-a", phaseIs(TaskPhase.Running))).isNotNull();

    // The task goes: its process is killed, then the claim is unprepared and let go; B gets the
    // GPU.
    f.api.delete(Kinds.TASK, "task-a");
    f.awaitGone(Kinds.RESOURCE_CLAIM, "claim-a");
    assertThat(f.holds(uidA)).isFalse();
    assertThat(specA).doesNotExist();
    var preparedB =
        f.await(Kinds.RESOURCE_CLAIM, "claim-b", prepareIs(PrepareState.Phase.Prepared));
    assertThat(prepareState(Optional.of(preparedB)).orElseThrow().cdiDevices())
        .containsExactly("quartermaster.dev/gpu=" + b.metadata().uid() + "-gpu-0");
  }

  @Test
  void aClaimWhoseTaskExitsIsLetGoWhenTheProcessEnds() throws Exception {
    f.api.create(claim("claim-c", "gpu-1"));
    f.await(Kinds.RESOURCE_CLAIM, "claim-c", prepareIs(PrepareState.Phase.Prepared));
    var fifo = tmp.resolve("go");
    java.nio.file.Files.createFile(fifo);
    // Runs until the file is removed: the test decides when the process ends, without sleeping.
    f.api.create(
        task(
            "task-c",
            List.of("claim-c"),
            List.of("sh", "-c", "while [ -e " + fifo + " ]; do sleep 0.1; done")));
    f.awaitTask("task-c", phaseIs(TaskPhase.Running));
    f.api.delete(Kinds.RESOURCE_CLAIM, "claim-c");
    f.await(
        Kinds.RESOURCE_CLAIM,
        "claim-c",
        c -> prepareState(c).filter(s -> s.reason().startsWith("in use by")).isPresent());
    java.nio.file.Files.delete(fifo);
    f.awaitTask("task-c", phaseIs(TaskPhase.Succeeded));
    f.awaitGone(Kinds.RESOURCE_CLAIM, "claim-c");
  }
}
