package dev.quartermaster.api.table;

import static dev.quartermaster.api.table.Fixtures.NOW;
import static dev.quartermaster.api.table.Fixtures.meta;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.Node;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ObjectTableTest {

  private final List<Node> nodes =
      List.of(new Node(meta("node-1", 600), null, null), new Node(meta("node-2", 60), null, null));

  /**
   * The served table, chosen narrow or wide, is the text table the kind's columns give directly.
   */
  @Test
  void itsViewsAreTheKindTablesOwnText() {
    var kindTable = KindTables.of(Kinds.NODE, NOW);
    var served = ObjectTable.of(kindTable, nodes);
    assertThat(served.view(false).render()).isEqualTo(kindTable.table(nodes, false).render());
    assertThat(served.view(true).render()).isEqualTo(kindTable.table(nodes, true).render());
  }

  @Test
  void itCrossesTheWireUnchanged() {
    var served = ObjectTable.of(KindTables.of(Kinds.NODE, NOW), nodes);
    var read = ObjectTable.fromJson(served.toJson().getBytes(StandardCharsets.UTF_8));
    assertThat(read).isEqualTo(served);
    var odd =
        new ObjectTable(
            List.of(new TableColumn("MESSAGE", false)),
            List.of(List.of("quote \" back\\slash \u00e9 \n")));
    assertThat(ObjectTable.fromJson(odd.toJson().getBytes(StandardCharsets.UTF_8))).isEqualTo(odd);
  }

  @Test
  void fieldsItDoesNotKnowAreSkippedAndAnythingElseIsRefused() {
    var extra =
        "{\"kind\":\"Table\",\"revision\":7,\"columns\":[{\"name\":\"NAME\",\"wide\":false,\"format\":{\"a\":[1]}}],"
            + "\"rows\":[[\"x\"]]}";
    assertThat(ObjectTable.fromJson(extra.getBytes(StandardCharsets.UTF_8)).rows())
        .containsExactly(List.of("x"));
    for (var bad :
        List.of(
            "{\"kind\":\"List\",\"items\":[]}",
            "[]",
            "{\"kind\":\"Table\",\"columns\":[{\"name\":\"A\"}],\"rows\":[[\"x\",\"y\"]]}",
            "{\"kind\":\"Table\",\"rows\":[[1]]",
            "")) {
      assertThatThrownBy(() -> ObjectTable.fromJson(bad.getBytes(StandardCharsets.UTF_8)))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  /**
   * Events list oldest first in the table as in any listing: the order is the kind's, not the
   * caller's.
   */
  @Test
  void rowsComeInTheKindsListingOrder() {
    var table = KindTables.of(Kinds.NODE, NOW);
    assertThat(table.inOrder(List.of(nodes.get(1), nodes.get(0))))
        .containsExactly(nodes.get(1), nodes.get(0));
  }
}
