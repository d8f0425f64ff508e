package dev.quartermaster.agent.mig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.quartermaster.agent.nvml.NvmlLibrary;
import dev.quartermaster.api.device.mig.MigModels;
import dev.quartermaster.api.device.mig.MigPlacement;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link NvmlMig} on a real MIG-capable GPU (the device machine's H200): runs only where {@code
 * libnvidia-ml.so.1} loads and a GPU has MIG, and skips with what it needs everywhere else, CI
 * included (CI never has a GPU). It leaves the GPU as it found it: MIG mode switched back, only its
 * own instances destroyed, and no creation at all on a GPU that has instances already.
 */
class NvmlMigHardwareTest {
  static final String NEEDS =
      "needs libnvidia-ml.so.1 and a MIG-capable GPU (H100/H200/B200);"
          + " run scripts/device-mig-check.sh on the device machine";

  private NvmlMig mig;
  private int gpu;
  private MigGpu migGpu;
  private final List<LiveInstance> made = new ArrayList<>();

  @BeforeEach
  void open() throws Exception {
    try {
      mig = NvmlMig.open(NvmlLibrary::load, Path.of("/"));
    } catch (MigRefusedException e) {
      assumeTrue(false, NEEDS + " (here: " + e.getMessage() + ")");
    }
    var capable = mig.capableGpus();
    assumeTrue(!capable.isEmpty(), NEEDS + " (here: NVML loads, but no GPU has MIG)");
    gpu = capable.getFirst();
    var name = mig.productName(gpu);
    var geometry = MigModels.forProduct(name);
    assumeTrue(geometry.isPresent(), NEEDS + " (here: " + name + ", whose geometry is not known)");
    migGpu = new MigGpu(gpu, "gpu-" + gpu, geometry.get());
    System.out.println("MIG check on gpu " + gpu + ": " + name + ", mode " + mig.mode(gpu));
  }

  @AfterEach
  void leaveAsFound() throws Exception {
    for (var i : made.reversed()) {
      try {
        mig.destroy(i);
      } catch (MigRefusedException e) {
        System.out.println("could not destroy " + i + ": " + e.getMessage());
      }
    }
    if (mig != null) {
      mig.close();
    }
  }

  @Test
  void discoveryReadsTheModeProfilesAndInstances() throws Exception {
    var mode = mig.mode(gpu);
    if (!mode.current()) {
      System.out.println("MIG is off on gpu " + gpu + ": NVML lists profiles only with it on");
      assertThat(mig.instances(migGpu)).isEmpty();
      return;
    }
    var profiles = mig.profiles(gpu);
    profiles.profiles().forEach(p -> System.out.println("  NVML profile " + p));
    assertThat(profiles.differences(migGpu.geometry()))
        .as("NVML's profiles against " + migGpu.geometry().model() + "'s geometry")
        .isEmpty();
    for (var i : mig.instances(migGpu)) {
      System.out.println("  existing instance " + i + " nodes " + mig.capabilityNodes(i));
      assertThat(i.uuid()).startsWith("MIG-");
    }
  }

  @Test
  void createsAndDestroysInstancesWhereMigModeIsOnOrMayBeSwitchedOn() throws Exception {
    boolean wasOn = mig.enabled(gpu);
    if (!wasOn) {
      try {
        mig.setEnabled(gpu, true);
      } catch (MigRefusedException e) {
        System.out.println("switching MIG on is not permitted here: " + e.getMessage());
        assertThat(e.refusal())
            .isIn(
                MigRefusedException.Refusal.NoPermission,
                MigRefusedException.Refusal.NotSupported,
                MigRefusedException.Refusal.ResetRequired,
                MigRefusedException.Refusal.InUse);
        assertThat(e.getMessage()).startsWith("gpu " + gpu + " (").contains("switching MIG on");
        if (mig.mode(gpu).changePending()) {
          mig.setEnabled(gpu, false); // withdraw the pending change: leave the GPU as found
        }
        return;
      }
    }
    try {
      assumeTrue(
          mig.instances(migGpu).isEmpty(), "gpu " + gpu + " has MIG instances already: left alone");
      var geometry = migGpu.geometry();
      var oneG = geometry.profiles().getFirst();
      for (int start : oneG.starts()) {
        made.add(mig.create(migGpu, new MigPlacement(oneG, start)));
      }
      assertThat(mig.instances(migGpu)).containsExactlyInAnyOrderElementsOf(made);
      for (var i : made) {
        assertThat(i.uuid()).startsWith("MIG-");
        System.out.println("  created " + i + " nodes " + mig.capabilityNodes(i));
        if (Files.isReadable(Path.of(MigMinors.PROC_FILE))) {
          var minors = MigMinors.parse(Files.readString(Path.of(MigMinors.PROC_FILE)));
          assertThat(minors.byPath()).containsValue(i.giCapMinor()).containsValue(i.ciCapMinor());
        }
      }
      destroyMade();

      var threeG = geometry.profiles().stream().filter(p -> p.computeSlices() == 3).findFirst();
      assumeTrue(threeG.isPresent(), geometry.model() + " has no 3g profile");
      made.add(
          mig.create(migGpu, new MigPlacement(threeG.get(), threeG.get().starts().getFirst())));
      var overlapping = new MigPlacement(oneG, threeG.get().starts().getFirst());
      assertThatThrownBy(() -> mig.create(migGpu, overlapping))
          .isInstanceOfSatisfying(
              MigRefusedException.class,
              e -> {
                assertThat(e.refusal())
                    .isEqualTo(MigRefusedException.Refusal.InsufficientResources);
                assertThat(e.getMessage()).contains("gpu " + gpu, overlapping.toString());
              });
      destroyMade();
      assertThat(mig.instances(migGpu)).isEmpty();
    } finally {
      destroyMade();
      if (!wasOn) {
        mig.setEnabled(gpu, false);
      }
    }
  }

  private void destroyMade() throws MigRefusedException {
    while (!made.isEmpty()) {
      mig.destroy(made.getLast());
      made.removeLast();
    }
  }
}
