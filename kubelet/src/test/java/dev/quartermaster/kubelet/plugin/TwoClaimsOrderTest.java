package dev.quartermaster.kubelet.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.kubelet.plugin.TwoClaimsOneDevice.Op;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * NVIDIA's issue 641 at the kubelet's socket: claims A and B allocated one device, the four calls
 * in every order, in both API versions. The real plugin never has both prepared, names the holder
 * when it refuses, prepares B on the retry after A's unprepare, and refuses late prepares; the
 * naive plugin kept in test code must be caught, or the check proves nothing.
 */
@Timeout(600)
class TwoClaimsOrderTest {

  static Stream<Arguments> everyOrderInBothVersions() {
    return Stream.of(KubeletClient.Version.values())
        .flatMap(v -> TwoClaimsOneDevice.everyOrder().stream().map(ops -> Arguments.of(v, ops)));
  }

  @Test
  void thereAre24Orders() {
    assertThat(TwoClaimsOneDevice.everyOrder()).hasSize(24).doesNotHaveDuplicates();
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("everyOrderInBothVersions")
  void noOrderPreparesBothAndEveryRefusalNamesTheHolder(KubeletClient.Version version, List<Op> ops)
      throws Exception {
    try (var node = new PluginFixture()) {
      assertThat(TwoClaimsOneDevice.run(node.kubelet(version), node::specsOnDisk, ops)).isEmpty();
      assertThat(node.plugin().ledger().holding()).as("both were unprepared").isEmpty();
      assertThat(node.specsOnDisk()).isEmpty();
    }
  }

  @Test
  void theNaivePluginDoublePreparesWhenBIsPreparedBeforeAIsUnprepared() throws Exception {
    var incident = List.of(Op.PREPARE_A, Op.PREPARE_B, Op.UNPREPARE_A, Op.UNPREPARE_B);
    try (var node = new PluginFixture();
        var naive = NaivePlugin.start(node, "naive")) {
      assertThat(TwoClaimsOneDevice.run(naive.kubelet(node), naive::specsOnDisk, incident))
          .anyMatch(v -> v.startsWith("both A and B prepared at once, on disk"))
          .anyMatch(v -> v.contains("prepared while A holds the device"));
      assertThat(
              TwoClaimsOneDevice.run(
                  node.kubelet(KubeletClient.Version.V1), node::specsOnDisk, incident))
          .isEmpty();
    }
  }

  @Test
  void theNaivePluginIsCaughtInEveryOrderThatPreparesBothBeforeEitherUnprepare() throws Exception {
    var caught = new ArrayList<List<Op>>();
    var orders = TwoClaimsOneDevice.everyOrder();
    try (var node = new PluginFixture()) {
      for (int i = 0; i < orders.size(); i++) {
        try (var naive = NaivePlugin.start(node, "naive" + i)) {
          if (!TwoClaimsOneDevice.run(naive.kubelet(node), naive::specsOnDisk, orders.get(i))
              .isEmpty()) {
            caught.add(orders.get(i));
          }
        }
      }
    }
    assertThat(caught)
        .contains(
            List.of(Op.PREPARE_A, Op.PREPARE_B, Op.UNPREPARE_A, Op.UNPREPARE_B),
            List.of(Op.PREPARE_A, Op.PREPARE_B, Op.UNPREPARE_B, Op.UNPREPARE_A),
            List.of(Op.PREPARE_B, Op.PREPARE_A, Op.UNPREPARE_A, Op.UNPREPARE_B),
            List.of(Op.PREPARE_B, Op.PREPARE_A, Op.UNPREPARE_B, Op.UNPREPARE_A));
  }
}
