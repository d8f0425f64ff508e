package dev.quartermaster.agent.mig;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.nvml.NvmlGiProfile;
import dev.quartermaster.agent.nvml.NvmlPlacement;
import dev.quartermaster.api.device.mig.MigGeometry;
import dev.quartermaster.api.device.mig.MigPlacement;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** NVML's profiles matched onto a geometry by shape, as an H200's driver lists them (no GPU). */
class NvmlMigProfilesTest {
  private static final MigGeometry H200 = MigGeometry.H200_141GB;

  /** An H200's profiles, named as a later driver might name them: names must not matter. */
  static NvmlMigProfiles h200(String oneSliceName) {
    return new NvmlMigProfiles(
        List.of(
            profile(4, 4, 7, 1, 144_384, "MIG 7g.141gb", 8, 0),
            profile(0, 0, 1, 7, 16_384, oneSliceName, 1, 0, 1, 2, 3, 4, 5, 6),
            profile(7, 7, 1, 1, 16_384, "MIG 1g.18gb+me", 1, 0, 1, 2, 3, 4, 5, 6),
            profile(9, 9, 1, 4, 32_768, "MIG 1g.35gb", 2, 0, 2, 4, 6),
            profile(1, 1, 2, 3, 32_768, "MIG 2g.35gb", 2, 0, 2, 4),
            profile(2, 2, 3, 2, 71_424, "MIG 3g.71gb", 4, 0, 4),
            profile(3, 3, 4, 1, 71_424, "MIG 4g.71gb", 4, 0)));
  }

  static NvmlMigProfiles.Profile profile(
      int index, int id, int slices, int count, long mb, String name, int size, int... starts) {
    return new NvmlMigProfiles.Profile(
        index,
        new NvmlGiProfile(id, slices, count, mb, name),
        IntStream.of(starts).mapToObj(s -> new NvmlPlacement(s, size)).toList());
  }

  @Test
  void eachGeometryProfileIsServedByTheNvmlProfileOfItsShapeNotItsName() {
    var nvml = h200("MIG 1g.17gb"); // a renamed 1g: still the 1-compute, 1-memory-slice profile
    var oneG = H200.profiles().getFirst();
    assertThat(nvml.serving(oneG).orElseThrow().info().id()).isEqualTo(0); // not the +me (7)
    assertThat(nvml.serving(H200.profile("1g.35gb").orElseThrow()).orElseThrow().info().id())
        .isEqualTo(9);
    assertThat(nvml.serving(H200.profile("3g.71gb").orElseThrow()).orElseThrow().info().id())
        .isEqualTo(2);
    assertThat(nvml.serving(H200.profile("4g.71gb").orElseThrow()).orElseThrow().info().id())
        .isEqualTo(3);
    assertThat(nvml.serving(H200.profile("7g.141gb").orElseThrow()).orElseThrow().info().id())
        .isEqualTo(4);
    assertThat(nvml.differences(H200)).isEmpty();
    assertThat(nvml.byId(0).orElseThrow().label()).isEqualTo("1g.17gb");
  }

  @Test
  void anInstanceIsPlacedByItsProfilesSlicesAndItsPlacementSpan() {
    var nvml = h200("MIG 1g.18gb");
    var threeG = H200.profile("3g.71gb").orElseThrow();
    var fourG = H200.profile("4g.71gb").orElseThrow();
    assertThat(nvml.placement(H200, 2, new NvmlPlacement(4, 4)))
        .hasValue(new MigPlacement(threeG, 4));
    assertThat(nvml.placement(H200, 3, new NvmlPlacement(0, 4)))
        .hasValue(new MigPlacement(fourG, 0));
    // A +me instance sits where a plain 1g would: the same slices, so the same placement.
    assertThat(nvml.placement(H200, 7, new NvmlPlacement(5, 1)))
        .hasValue(new MigPlacement(H200.profiles().getFirst(), 5));
    assertThat(nvml.placement(H200, 2, new NvmlPlacement(2, 4))).isEmpty(); // no 3g starts at 2
    assertThat(nvml.placement(H200, 42, new NvmlPlacement(0, 4))).isEmpty(); // unknown profile
  }

  @Test
  void aGeometryThatDisagreesWithTheDriverIsNamed() {
    var nvml =
        new NvmlMigProfiles(
            List.of(
                profile(0, 0, 1, 7, 16_384, "MIG 1g.18gb", 1, 0, 1, 2, 3, 4, 5, 6),
                profile(2, 2, 3, 2, 71_424, "MIG 3g.71gb", 4, 0, 2)));
    var differences = nvml.differences(H200);
    assertThat(differences).contains("3g.71gb starts at [0, 4] here, NVML's 3g.71gb at [0, 2]");
    assertThat(differences)
        .anyMatch(d -> d.startsWith("7g.141gb (7g8m): NVML offers no profile of 7 compute"));
  }
}
