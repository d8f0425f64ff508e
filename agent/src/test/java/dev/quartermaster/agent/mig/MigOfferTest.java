package dev.quartermaster.agent.mig;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.discovery.DiscoveredGpu;
import dev.quartermaster.api.device.mig.MigGeometry;
import dev.quartermaster.api.node.MigMode;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What one GPU publishes, by its mode, the operator's wish and its model: the table. */
class MigOfferTest {
  private static final DiscoveredGpu H200 = MigNodeUnderTest.GPU;
  private static final MigGpu GPU = new MigGpu(0, "gpu-0", MigGeometry.H200_141GB);
  private static final int ALL = MigGeometry.H200_141GB.placements().size();

  private static DiscoveredGpu model(String name) {
    return new DiscoveredGpu(
        H200.name(),
        H200.index(),
        H200.uuid(),
        name,
        H200.memoryBytes(),
        H200.minor(),
        H200.pciBusId(),
        H200.node());
  }

  private static LiveInstance one() throws MigRefusedException {
    var table = MigTable.empty("n").withMode(0, true);
    return table.next(GPU, MigGeometry.H200_141GB.placements().getFirst());
  }

  record Row(
      String what,
      DiscoveredGpu gpu,
      Optional<MigMode> wish,
      boolean enabled,
      int existing,
      boolean whole,
      int slices,
      boolean counters,
      boolean note) {}

  @Test
  void eachModeWishAndModelOffersWhatTheTableSays() throws MigRefusedException {
    var dyn = Optional.of(MigMode.Dynamic);
    var stat = Optional.of(MigMode.Static);
    var rows =
        List.of(
            new Row("no wish, mode off", H200, Optional.empty(), false, 0, true, 0, false, false),
            new Row("Dynamic wished, mode not on yet", H200, dyn, false, 0, true, 0, false, true),
            new Row("Dynamic, on: every placement", H200, dyn, true, 0, false, ALL, true, false),
            new Row(
                "Dynamic, on, one instance: still every",
                H200,
                dyn,
                true,
                1,
                false,
                ALL,
                true,
                false),
            new Row("Static, on: exactly what exists", H200, stat, true, 1, false, 1, true, false),
            new Row("Static, on, none made", H200, stat, true, 0, false, 0, true, false),
            new Row(
                "wish withdrawn, mode still on",
                H200,
                Optional.empty(),
                true,
                1,
                false,
                1,
                true,
                true),
            new Row(
                "unknown model in MIG mode",
                model("NVIDIA H100 NVL"),
                dyn,
                true,
                0,
                false,
                0,
                false,
                true));
    for (var r : rows) {
      var existing = r.existing() == 0 ? List.<LiveInstance>of() : List.of(one());
      var offer = MigOffer.of(r.gpu(), r.wish(), r.enabled(), existing);
      assertThat(offer.whole().isPresent()).as(r.what() + ": whole").isEqualTo(r.whole());
      assertThat(offer.slices()).as(r.what() + ": slices").hasSize(r.slices());
      assertThat(offer.counters().isPresent()).as(r.what() + ": counters").isEqualTo(r.counters());
      assertThat(offer.note().isPresent()).as(r.what() + ": note").isEqualTo(r.note());
      // The contract: a GPU in MIG mode never publishes itself whole, one not in it no slices.
      assertThat(offer.devices().stream().anyMatch(d -> d.name().equals("gpu-0")))
          .as(r.what() + ": whole GPU published")
          .isEqualTo(r.whole());
    }
  }
}
