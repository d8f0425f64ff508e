package dev.quartermaster.agent.mig;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.node.MigReady;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.node.MigMode;
import dev.quartermaster.api.node.NodeConditions;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A wished MIG mode change that waits for claims is said where users look: {@link
 * NodeMig#applyModes} names the GPU and the claims it waits out, and switches the GPU once they let
 * go; {@link MigReady} turns that into the Node's condition, {@code False} while it waits and
 * {@code True} once done.
 */
class MigModeWaitTest {
  private final MigMemory driver = new MigMemory("n", Path.of("/sim/n/dev"));
  private final NodeMig mig = new NodeMig(new SimulatedMig(driver, nodes -> false));
  private final List<dev.quartermaster.agent.discovery.DiscoveredGpu> gpus =
      List.of(MigNodeUnderTest.GPU);

  @Test
  void aModeChangeWaitsNamingTheClaimsThenSwitchesOnceTheyLetGo() throws Exception {
    var wish = Map.of("gpu-0", MigMode.Dynamic);
    mig.wish(wish);

    var waits = mig.applyModes(Map.of("gpu-0", "b", "gpu-1", "other"), gpus);
    assertThat(waits.waiting())
        .containsExactly(Map.entry("gpu-0", "gpu-0 switches to MIG once claims [b] let go"));
    assertThat(waits.switched()).isEmpty();
    assertThat(mig.control().enabled(0)).as("not switched under a claim").isFalse();
    assertThat(MigReady.of(wish, waits, List.of(), false))
        .hasValue(
            new Condition(
                NodeConditions.MIG_READY,
                Condition.Status.False,
                "MigModeWaiting",
                "gpu-0 switches to MIG once claims [b] let go",
                Optional.empty()));

    var done = mig.applyModes(Map.of(), gpus);
    assertThat(done.switched()).containsExactly(Map.entry("gpu-0", true));
    assertThat(done.waiting()).isEmpty();
    assertThat(mig.control().enabled(0)).isTrue();
    assertThat(MigReady.of(wish, done, List.of(), true).orElseThrow())
        .extracting(Condition::status, Condition::reason, Condition::message)
        .containsExactly(Condition.Status.True, "MigModesApplied", "MIG as wished: gpu-0 Dynamic");

    assertThat(mig.applyModes(Map.of(), gpus))
        .as("a GPU in the wished mode is not switched again")
        .isEqualTo(new MigModeChanges(Map.of(), Map.of()));
  }

  @Test
  void turningMigOffWaitsForTheSlicesClaimsTooAndTheConditionStaysOnceItHadOne() {
    mig.wish(Map.of("gpu-0", MigMode.Dynamic));
    mig.applyModes(Map.of(), gpus);
    mig.wish(Map.of());

    var waits = mig.applyModes(Map.of("gpu-0-mig-1g1m-6", "a", "gpu-0-mig-3g4m-0", "c"), gpus);
    assertThat(waits.waiting())
        .containsExactly(Map.entry("gpu-0", "gpu-0 switches MIG off once claims [a, c] let go"));

    var off = mig.applyModes(Map.of(), gpus);
    assertThat(off.switched()).containsExactly(Map.entry("gpu-0", false));
    assertThat(MigReady.of(Map.of(), off, List.of(), true).orElseThrow())
        .extracting(Condition::status, Condition::message)
        .containsExactly(Condition.Status.True, "no GPU in MIG mode");
  }

  @Test
  void aNodeNeverWishedMigHasNoConditionAndAnUnknownModelIsSaid() {
    var nothing = new MigModeChanges(Map.of(), Map.of());
    assertThat(MigReady.of(Map.of(), nothing, List.of(), false)).isEmpty();
    var note = "gpu-0 is in MIG mode but its model \"X\" has no known MIG geometry";
    assertThat(MigReady.of(Map.of(), nothing, List.of(note), false).orElseThrow())
        .extracting(Condition::status, Condition::reason, Condition::message)
        .containsExactly(Condition.Status.False, "MigNotOffered", note);
  }
}
