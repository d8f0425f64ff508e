package dev.quartermaster.cli.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** The JSONPath that scripts write with kubectl, on a list document as {@code get -o json} has. */
class JsonPathTemplateTest {
  private static final String LIST =
      """
      {"kind": "List", "items": [
        {"metadata": {"name": "a", "labels": {"team": "x"}}, "status": {"phase": "Running"}},
        {"metadata": {"name": "b"}, "status": {"phase": "Pending", "node": "n1"}}]}
      """;

  private static String render(String template) throws Exception {
    return JsonPathTemplate.parse(template).render(new ObjectMapper().readTree(LIST));
  }

  @Test
  void pathsRangesAndStringsPrintAsKubectlsDo() throws Exception {
    assertThat(render("{.items[*].metadata.name}")).isEqualTo("a b");
    assertThat(render("{.items[1].status.phase}")).isEqualTo("Pending");
    assertThat(render("{.items[-1].metadata.name}")).isEqualTo("b");
    assertThat(render("{range .items[*]}{.metadata.name}{\"\\t\"}{.status.phase}{\"\\n\"}{end}"))
        .isEqualTo("a\tRunning\nb\tPending\n");
    assertThat(render("{.items[0].metadata.labels}")).isEqualTo("{\"team\":\"x\"}");
    assertThat(render("name={.items[0].metadata.name}")).isEqualTo("name=a");
    assertThat(render("{.items[*].status.node}")).isEqualTo("n1");
    assertThat(render("{.nothing.here}")).isEmpty();
  }

  @Test
  void aTemplateItCannotReadSaysWhere() {
    assertThatThrownBy(() -> JsonPathTemplate.parse("{.items[*"))
        .hasMessageContaining("never closed");
    assertThatThrownBy(() -> JsonPathTemplate.parse("{range .items[*]}x"))
        .hasMessageContaining("{range} is never closed by {end}");
    assertThatThrownBy(() -> JsonPathTemplate.parse("{end}"))
        .hasMessageContaining("closes no {range}");
    assertThatThrownBy(() -> JsonPathTemplate.parse("{items}"))
        .hasMessageContaining("a path starts with '.'");
    assertThatThrownBy(() -> JsonPathTemplate.parse("{.items[x]}"))
        .hasMessageContaining("must be a number or *");
  }
}
