package dev.quartermaster.cli.describe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.table.Table;
import java.util.List;
import org.junit.jupiter.api.Test;

class DescriptionTest {

  @Test
  void fieldsAtOneDepthAlignSectionsIndentAndEmptyThingsReadNone() {
    var text =
        new Description()
            .field("Name", "gpu-node-1")
            .values("Labels", List.of("a=1", "b=2"))
            .section("Spec", d -> d.field("Unschedulable", "false").field("Fenced", ""))
            .table(
                "Devices",
                new Table(List.of("DEVICE", "HEALTH"), List.of(List.of("gpu-0", "Healthy"))))
            .table("Conditions", new Table(List.of("TYPE"), List.of()))
            .render();

    assertThat(text)
        .isEqualTo(
            """
        Name:        gpu-node-1
        Labels:      a=1
                     b=2
        Spec:
          Unschedulable:  false
          Fenced:         <none>
        Devices:
          DEVICE   HEALTH
          gpu-0    Healthy
        Conditions:  <none>
        """);
  }
}
