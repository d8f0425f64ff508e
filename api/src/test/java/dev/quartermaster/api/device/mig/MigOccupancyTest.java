package dev.quartermaster.api.device.mig;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The picture {@code describe node} draws, and the words for a fragmented GPU. */
class MigOccupancyTest {
  private static final MigGeometry H200 = MigGeometry.H200_141GB;

  static MigPlacement at(String label, int start) {
    return new MigPlacement(H200.profile(label).orElseThrow(), start);
  }

  @Test
  void renderDrawsEachPositionAndWhoHoldsIt() {
    var gpu =
        new MigOccupancy(
            "gpu-0",
            H200,
            List.of(
                MigInstance.held(at("3g.71gb", 4), "claim/a"),
                MigInstance.free(at("1g.18gb", 0)),
                MigInstance.held(at("1g.35gb", 2), "claim/b")));
    assertThat(gpu.render()).isEqualTo("[1g.18gb: free][·][1g.35gb: claim/b][3g.71gb: claim/a]");
    assertThat(MigOccupancy.empty("gpu-1", H200).render()).isEqualTo("[·]".repeat(8));
    assertThat(gpu.freeCompute()).isEqualTo(2);
    assertThat(gpu.freeMemorySlices()).isEqualTo(1);
  }

  @Test
  void theFieldBugIsFragmentedInAnOperatorsWords() {
    // dra-driver-nvidia-gpu #933: 1g slices left at 0, 1 and 5
    var gpu =
        MigOccupancy.empty("gpu-3", H200)
            .with(at("1g.18gb", 0), "claim/a")
            .with(at("1g.18gb", 1), "claim/b")
            .with(at("1g.18gb", 5), "claim/c");
    assertThat(MigFragmentation.blocked(gpu).stream().map(MigProfile::label))
        .containsExactly("4g.71gb", "3g.71gb");
    assertThat(MigFragmentation.describe(gpu))
        .contains(
            "gpu-3 is fragmented: 4 compute and 5 memory slices free, yet no 4g.71gb or 3g.71gb"
                + " fits (positions 0, 1, 5 taken)");
  }

  @Test
  void aGpuWithoutRoomIsFullNotFragmented() {
    var full =
        MigOccupancy.empty("gpu-0", H200).with(at("4g.71gb", 0), "a").with(at("3g.71gb", 4), "b");
    assertThat(MigFragmentation.describe(full)).isEmpty();
    // a 3g at 4 leaves the 4g its only start; a 3g at 0 leaves 4 + 4 free where no 4g may start
    assertThat(
            MigFragmentation.describe(
                MigOccupancy.empty("gpu-0", H200).with(at("3g.71gb", 4), "a")))
        .isEmpty();
    assertThat(
            MigFragmentation.blocked(MigOccupancy.empty("gpu-0", H200).with(at("3g.71gb", 0), "a")))
        .extracting(MigProfile::label)
        .containsExactly("4g.71gb");
  }
}
