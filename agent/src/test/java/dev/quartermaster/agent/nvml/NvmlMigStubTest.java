package dev.quartermaster.agent.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.quartermaster.agent.discovery.DeviceNumber;
import dev.quartermaster.agent.mig.LiveInstance;
import dev.quartermaster.agent.mig.MigGpu;
import dev.quartermaster.agent.mig.MigRefusedException;
import dev.quartermaster.agent.mig.MigRefusedException.Refusal;
import dev.quartermaster.agent.mig.NvmlMig;
import dev.quartermaster.api.device.mig.MigGeometry;
import dev.quartermaster.api.device.mig.MigPlacement;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link NvmlMig} through our FFM binding against the C test double (built with gcc; skipped
 * without it), whose device 0 has an H200's MIG profiles: every downcall's signature, struct and
 * out-parameter is exercised, and the refusals come back as the agent acts on them.
 */
class NvmlMigStubTest {
  private static final MigGeometry H200 = MigGeometry.H200_141GB;
  private static final MigGpu GPU0 = new MigGpu(0, "gpu-0", H200);

  @TempDir Path dir;
  private NvmlStub stub;
  private NvmlMig mig;

  @BeforeEach
  void open() throws Exception {
    var built = NvmlStub.build(dir);
    assumeTrue(built.isPresent(), "gcc is not installed: cannot build the NVML test double");
    stub = built.get();
    var root = dir.resolve("root");
    Files.createDirectories(root.resolve("proc/driver/nvidia-caps"));
    Files.writeString(
        root.resolve("proc/devices"), "Character devices:\n195 nvidia\n237 nvidia-caps\n\n");
    Files.writeString(
        root.resolve("proc/driver/nvidia-caps/mig-minors"),
        "config 1\nmonitor 2\ngpu0/gi1/access 12\ngpu0/gi1/ci0/access 13\n");
    mig = NvmlMig.open(() -> NvmlLibrary.load(stub.path()), root);
  }

  @AfterEach
  void close() {
    if (mig != null) {
      mig.close();
    }
    if (stub != null) {
      stub.close();
    }
  }

  private static MigPlacement at(String label, int start) {
    return new MigPlacement(H200.profile(label).orElseThrow(), start);
  }

  @Test
  void discoveryReadsTheModeAndMatchesNvmlsProfilesOntoTheGeometry() throws Exception {
    assertThat(mig.capableGpus()).containsExactly(0);
    assertThat(mig.enabled(0)).isFalse();
    assertThat(mig.enabled(1)).isFalse(); // no MIG at all: off, not an error
    assertThat(mig.profiles(0).profiles()).isEmpty(); // the driver lists none while MIG is off

    mig.setEnabled(0, true);

    assertThat(mig.enabled(0)).isTrue();
    var profiles = mig.profiles(0);
    assertThat(profiles.differences(H200)).isEmpty();
    assertThat(profiles.serving(H200.profile("1g.35gb").orElseThrow()).orElseThrow().label())
        .isEqualTo("1g.35gb");
    assertThat(mig.instances(GPU0)).isEmpty();
  }

  @Test
  void createsA1gAtEachPlacementRefusesAnOverlapAndDestroysThemAll() throws Throwable {
    mig.setEnabled(0, true);
    var made = new ArrayList<LiveInstance>();
    for (int start = 0; start < 7; start++) {
      made.add(mig.create(GPU0, at("1g.18gb", start)));
    }
    assertThat(made)
        .extracting(LiveInstance::uuid)
        .doesNotHaveDuplicates()
        .allMatch(u -> u.startsWith("MIG-"));
    assertThat(mig.instances(GPU0)).containsExactlyElementsOf(made);
    var first = made.getFirst();
    assertThat(first.giId()).isEqualTo(1);
    assertThat(first.giCapMinor()).isEqualTo(12); // from mig-minors
    assertThat(mig.capabilityNodes(first).getFirst().number()).isEqualTo(new DeviceNumber(237, 12));

    assertThatThrownBy(() -> mig.create(GPU0, at("3g.71gb", 4)))
        .isInstanceOfSatisfying(
            MigRefusedException.class,
            e -> {
              assertThat(e.refusal()).isEqualTo(Refusal.InsufficientResources);
              assertThat(e.getMessage())
                  .startsWith("gpu 0 (NVIDIA Stub H100): creating 3g.71gb@4: ");
            });

    for (var i : made) {
      mig.destroy(i);
    }
    assertThat(mig.instances(GPU0)).isEmpty();
    assertThat(stub.migInstances()).isZero();
    mig.destroy(first); // gone already: nothing to do
  }

  @Test
  void a3gIsCreatedWithOneComputeInstanceFillingItAndADestroyWhileHeldIsInUse() throws Throwable {
    mig.setEnabled(0, true);
    var threeG = mig.create(GPU0, at("3g.71gb", 4));
    assertThat(threeG.placement()).isEqualTo(at("3g.71gb", 4));
    assertThat(mig.create(GPU0, at("3g.71gb", 0)).placement().start()).isZero();
    assertThatThrownBy(() -> mig.create(GPU0, at("1g.18gb", 6)))
        .extracting(e -> ((MigRefusedException) e).refusal())
        .isEqualTo(Refusal.InsufficientResources);

    stub.control("stub_mig_hold", threeG.giId(), 1);
    assertThatThrownBy(() -> mig.destroy(threeG))
        .isInstanceOfSatisfying(
            MigRefusedException.class,
            e -> {
              assertThat(e.refusal()).isEqualTo(Refusal.InUse);
              assertThat(e.getMessage()).contains("gpu 0", "destroying 3g.71gb@4");
            });
    assertThatThrownBy(() -> mig.setEnabled(0, false))
        .extracting(e -> ((MigRefusedException) e).refusal())
        .isEqualTo(Refusal.InUse);
    stub.control("stub_mig_hold", threeG.giId(), 0);
    mig.destroy(threeG);
    assertThat(mig.instances(GPU0))
        .extracting(LiveInstance::placement)
        .containsExactly(at("3g.71gb", 0));
  }

  @Test
  void aHalfMadeInstanceIsNotListedAndACreateOverItReplacesIt() throws Throwable {
    mig.setEnabled(0, true);
    try (var nvml = ((NvmlLoad.Loaded) NvmlLibrary.load(stub.path())).library()) {
      nvml.init();
      // A create cut short after the GPU instance, before its compute instance.
      nvml.mig().createGpuInstance(nvml.handleByIndex(0), 0, new NvmlPlacement(6, 1));
      nvml.shutdown();
    }
    assertThat(mig.instances(GPU0)).isEmpty();
    var made = mig.create(GPU0, at("1g.18gb", 6));
    assertThat(mig.instances(GPU0)).containsExactly(made);
    assertThat(stub.migInstances()).isEqualTo(1);
  }

  @Test
  void aModeChangeThatIsNotPermittedOrWaitsForAResetIsReportedNotHidden() throws Throwable {
    assertThatThrownBy(() -> mig.setEnabled(1, true))
        .extracting(e -> ((MigRefusedException) e).refusal())
        .isEqualTo(Refusal.NotSupported);

    stub.control("stub_mig_refuse", NvmlReturn.NO_PERMISSION);
    assertThatThrownBy(() -> mig.setEnabled(0, true))
        .isInstanceOfSatisfying(
            MigRefusedException.class,
            e -> {
              assertThat(e.refusal()).isEqualTo(Refusal.NoPermission);
              assertThat(e.getMessage()).startsWith("gpu 0 (NVIDIA Stub H100): switching MIG on: ");
            });

    stub.control("stub_mig_refuse", 0);
    stub.control("stub_mig_needs_reset", 1);
    assertThatThrownBy(() -> mig.setEnabled(0, true))
        .isInstanceOfSatisfying(
            MigRefusedException.class,
            e -> {
              assertThat(e.refusal()).isEqualTo(Refusal.ResetRequired);
              assertThat(e.getMessage()).contains("pending", "GPU reset");
            });
    assertThat(mig.mode(0)).isEqualTo(new NvmlMigMode(false, true));
    assertThat(mig.enabled(0)).isFalse();
  }
}
