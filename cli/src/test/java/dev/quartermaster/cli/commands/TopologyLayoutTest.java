package dev.quartermaster.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.gang.TopologyKeys;
import dev.quartermaster.cli.CliException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code qm up --topology}: what it accepts, what it refuses and why, and the labels it gives. */
class TopologyLayoutTest {
  private static List<Map<String, String>> labels(String text, int nodes) {
    var layout = TopologyLayout.parse(text, nodes);
    var out = new ArrayList<Map<String, String>>();
    for (int i = 0; i < nodes; i++) {
      out.add(layout.labels(i, nodes));
    }
    return out;
  }

  @Test
  void nodesAreCutInOrderIntoEqualRunsPerLevel() {
    assertThat(labels("racks=2,cliques=4", 4))
        .containsExactly(
            Map.of(TopologyKeys.RACK, "rack-1", TopologyKeys.NVLINK_CLIQUE, "clique-1"),
            Map.of(TopologyKeys.RACK, "rack-1", TopologyKeys.NVLINK_CLIQUE, "clique-2"),
            Map.of(TopologyKeys.RACK, "rack-2", TopologyKeys.NVLINK_CLIQUE, "clique-3"),
            Map.of(TopologyKeys.RACK, "rack-2", TopologyKeys.NVLINK_CLIQUE, "clique-4"));
    assertThat(labels("racks=2", 2))
        .containsExactly(Map.of(TopologyKeys.RACK, "rack-1"), Map.of(TopologyKeys.RACK, "rack-2"));
  }

  @Test
  void levelsMayBeGivenInAnyOrderAndUnevenRunsStillNest() {
    // 7 nodes, 1 zone, 2 racks, 4 cliques: every clique inside one rack, every value used.
    var all = labels("cliques=4, zones=1 ,racks=2", 7);
    for (var l : all) {
      assertThat(l).containsEntry(TopologyKeys.ZONE, "zone-1");
      int clique =
          Integer.parseInt(l.get(TopologyKeys.NVLINK_CLIQUE).substring("clique-".length()));
      int rack = Integer.parseInt(l.get(TopologyKeys.RACK).substring("rack-".length()));
      assertThat(rack).as(l.toString()).isEqualTo((clique - 1) / 2 + 1);
    }
    assertThat(all.stream().map(l -> l.get(TopologyKeys.NVLINK_CLIQUE)).distinct())
        .containsExactly("clique-1", "clique-2", "clique-3", "clique-4");
    assertThat(TopologyLayout.parse("cliques=4,racks=2", 8).describe(5, 8))
        .isEqualTo("rack-2, clique-3");
  }

  @Test
  void aBadLayoutIsRefusedNamingWhatIsWrong() {
    refused("", 2, "--topology: empty; expected LEVEL=COUNT,...");
    refused("racks", 2, "--topology: 'racks': expected LEVEL=COUNT,...");
    refused("rows=2", 2, "--topology: unknown level 'rows'; expected LEVEL=COUNT,...");
    refused("racks=2,racks=1", 2, "--topology: racks given twice");
    refused("racks=two", 2, "--topology: racks=two: the count must be a whole number");
    refused("racks=0", 2, "--topology: racks=0: must be between 1 and the number of nodes (2)");
    refused("cliques=3", 2, "--topology: cliques=3: must be between 1 and the number of nodes (2)");
    refused(
        "racks=2,cliques=3",
        6,
        "--topology: cliques=3 is not a multiple of racks=2: each of the racks must hold the same"
            + " number of cliques, and none spans two");
  }

  private static void refused(String text, int nodes, String message) {
    assertThatThrownBy(() -> TopologyLayout.parse(text, nodes))
        .isInstanceOf(CliException.class)
        .hasMessageStartingWith(message);
  }
}
