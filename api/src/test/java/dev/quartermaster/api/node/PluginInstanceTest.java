package dev.quartermaster.api.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.codec.ObjectCodec;
import java.util.LinkedHashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A plugin's roles keep their declared order, whatever order they were given in: they are written
 * into the node's status, and a replayed simulation must write the same bytes. {@code Set.copyOf}
 * kept an order salted afresh by each JVM.
 */
class PluginInstanceTest {

  @Test
  void rolesAreWrittenInTheirDeclaredOrderWhateverOrderTheyCameIn() throws Exception {
    var given = List.of(PluginRole.Node, PluginRole.Controller);
    var forwards = plugin(new LinkedHashSet<>(given));
    var backwards = plugin(new LinkedHashSet<>(given.reversed()));
    assertThat(List.copyOf(forwards.roles()))
        .containsExactly(PluginRole.Controller, PluginRole.Node);
    assertThat(List.copyOf(backwards.roles()))
        .containsExactly(PluginRole.Controller, PluginRole.Node);
    var json = ObjectCodec.json();
    assertThat(json.writeValueAsString(forwards)).isEqualTo(json.writeValueAsString(backwards));
  }

  private static PluginInstance plugin(java.util.Set<PluginRole> roles) {
    return new PluginInstance("p", "unix:///p.sock", "1", roles, true, "", "node-1");
  }
}
