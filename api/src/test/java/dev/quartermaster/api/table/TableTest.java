package dev.quartermaster.api.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class TableTest {

  @Test
  void columnsAreAlignedWithThreeSpacesAndNoTrailingBlanks() {
    var table =
        new Table(
            List.of("NAME", "READY", "AGE"),
            List.of(List.of("gpu-node-1", "True", "5s"), List.of("n2", "Unknown", "3m20s")));

    assertThat(table.render())
        .isEqualTo(
            """
        NAME         READY     AGE
        gpu-node-1   True      5s
        n2           Unknown   3m20s
        """);
  }

  @Test
  void aWideCellPushesTheRestRightInsteadOfBeingCut() {
    assertThat(Table.line(List.of("a-very-long-name", "x"), List.of(4, 1)))
        .isEqualTo("a-very-long-name   x\n");
  }
}
