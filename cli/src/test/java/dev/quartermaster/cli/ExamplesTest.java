package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.gang.Gang;
import dev.quartermaster.api.gang.GangTopology;
import dev.quartermaster.api.gang.MemberFailurePolicy;
import dev.quartermaster.api.gang.WorkloadGangs;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.validation.ObjectValidator;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeSpec;
import dev.quartermaster.api.volume.VolumeUse;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.cli.apply.ManifestReader;
import dev.quartermaster.csi.hostpath.HostpathConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The manifests in examples/ are what new users apply first, and docs/api-samples/ shows the kinds
 * the system writes: every one must decode and validate, and together they show every kind.
 */
class ExamplesTest {
  /** The repository root; Maven runs tests in the module directory. */
  static final Path REPO = Path.of("..").toAbsolutePath().normalize();

  @Test
  void everyExampleDecodesAndIsValid() {
    var env = TestEnvironments.of(Map.of(), REPO, REPO);
    var manifests = new ManifestReader(env).read(List.of("examples", "docs/api-samples"));

    assertThat(manifests).isNotEmpty();
    for (var m : manifests) {
      assertThat(ObjectValidator.validate(m.object())).as(m.where()).isEmpty();
    }
  }

  @Test
  void thereIsAnExampleOfEveryKind() {
    var env = TestEnvironments.of(Map.of(), REPO, REPO);
    var kinds =
        new ManifestReader(env)
            .read(List.of("examples", "docs/api-samples")).stream()
                .map(m -> m.object().kind().name())
                .collect(Collectors.toSet());

    assertThat(kinds)
        .containsExactlyInAnyOrderElementsOf(Kinds.ALL.stream().map(Kind::name).toList());
  }

  /**
   * examples/volumes.yaml: parsed and validated only; running it is the integration tests' work.
   */
  @Test
  void theVolumesExampleHasASharedReadOnlyDatasetAndAScratchVolumePerWorker() {
    var env = TestEnvironments.of(Map.of(), REPO, REPO);
    var manifests = new ManifestReader(env).read(List.of("examples/volumes.yaml"));

    assertThat(manifests)
        .extracting(m -> m.object().kind().name())
        .containsExactly("Volume", "Workload");
    manifests.forEach(
        m -> assertThat(ObjectValidator.validate(m.object())).as(m.where()).isEmpty());
    var dataset = (Volume) manifests.get(0).object();
    assertThat(dataset.spec().accessMode()).isEqualTo(VolumeSpec.AccessMode.MultiNodeReaderOnly);
    assertThat(dataset.spec().capacityBytes()).isEqualTo(1L << 30);
    var group = ((Workload) manifests.get(1).object()).spec().groups().getFirst();
    assertThat(group.replicas()).isEqualTo(3);
    assertThat(group.template().volumes()).containsExactly(VolumeUse.reader("dataset"));
    assertThat(group.volumeClaimTemplates())
        .singleElement()
        .satisfies(
            t -> {
              assertThat(t.name()).isEqualTo("scratch");
              assertThat(t.spec().capacityBytes()).isEqualTo(100L << 20);
              assertThat(t.spec().accessMode()).isEqualTo(VolumeSpec.AccessMode.SingleNodeWriter);
            });
    assertThat(String.join(" ", group.template().command()))
        .contains("$QM_VOLUME_SCRATCH")
        .contains("$QM_VOLUME_DATASET");
  }

  /** examples/gang-launcher-job.yaml: a launcher and its workers, one gang over both groups. */
  @Test
  void theLauncherExampleIsOneWorkloadGangOverItsTwoGroups() {
    var env = TestEnvironments.of(Map.of(), REPO, REPO);
    var manifests = new ManifestReader(env).read(List.of("examples/gang-launcher-job.yaml"));

    assertThat(manifests).singleElement();
    assertThat(ObjectValidator.validate(manifests.getFirst().object())).isEmpty();
    var w = (Workload) manifests.getFirst().object();
    assertThat(WorkloadGangs.of(w.spec()))
        .containsExactly(
            new Gang(
                Gang.WHOLE_WORKLOAD,
                List.of(new Gang.Share("launcher", 1), new Gang.Share("workers", 3)),
                MemberFailurePolicy.RestartGang,
                GangTopology.ANYWHERE));
  }

  /**
   * The README tour leaves volumes.yaml's dataset behind, and the examples' volumes are applied in
   * any order: all of them together must fit in what qm up's hostpath plugin offers, or the last
   * one waits for ever (RESOURCE_EXHAUSTED).
   */
  @Test
  void everyExampleVolumeFitsTogetherInQmUpsHostpathPlugin() {
    var env = TestEnvironments.of(Map.of(), REPO, REPO);
    long total = 0;
    for (var m : new ManifestReader(env).read(List.of("examples", "docs/api-samples"))) {
      if (m.object() instanceof Volume v && v.spec().plugin().equals(HostpathConfig.PLUGIN_NAME)) {
        total += v.spec().capacityBytes();
      } else if (m.object() instanceof Workload w) {
        for (var g : w.spec().groups()) {
          for (var t : g.volumeClaimTemplates()) {
            total += t.spec().capacityBytes() * g.replicas();
          }
        }
      }
    }
    assertThat(total)
        .as("bytes the examples' volumes ask for")
        .isPositive()
        .isLessThanOrEqualTo(HostpathConfig.DEFAULT_CAPACITY);
  }
}
