package dev.quartermaster.cli.table;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.api.node.PluginInstance;
import dev.quartermaster.api.node.PluginRole;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PluginTableTest {
  private static final String HOSTPATH = "hostpath.csi.quartermaster.dev";

  @Test
  void oneRowPerInstanceAcrossNodesWithTheMessageOfAnUnhealthyOne() {
    var nodes =
        List.of(
            node(
                "node-2",
                new PluginInstance(
                    HOSTPATH,
                    "unix:///run/qm/csi/hostpath.sock",
                    "0.3.0",
                    Set.of(PluginRole.Node, PluginRole.Controller),
                    false,
                    "Probe: UNAVAILABLE (connection refused)",
                    "node-2")),
            node(
                "node-1",
                new PluginInstance(
                    HOSTPATH,
                    "unix:///run/qm/csi/hostpath.sock",
                    "0.3.0",
                    Set.of(PluginRole.Node),
                    true,
                    "",
                    "node-1"),
                new PluginInstance(
                    "nfs.csi.example.com",
                    "unix:///run/qm/csi/nfs.sock",
                    "4.1",
                    Set.of(PluginRole.Controller),
                    true,
                    "",
                    "")),
            node("node-3"));

    var text = PluginTable.of(nodes, false).render();

    assertThat(text)
        .isEqualTo(
            """
        NAME                             NODE     ROLES             VERSION   HEALTHY   ENDPOINT
        hostpath.csi.quartermaster.dev   node-1   Node              0.3.0     yes       unix:///run/qm/csi/hostpath.sock
        hostpath.csi.quartermaster.dev   node-2   Controller,Node   0.3.0     no        Probe: UNAVAILABLE (connection refused)
        nfs.csi.example.com              node-1   Controller        4.1       yes       unix:///run/qm/csi/nfs.sock
        """);
    assertThat(PluginTable.of(nodes, true).headers()).endsWith("ENDPOINT", "CSI-NODE-ID");
    assertThat(PluginTable.of(List.of(node("node-3")), false).rows()).isEmpty();
  }

  private static Node node(String name, PluginInstance... plugins) {
    return new Node(
        ObjectMeta.named(name).withUid("uid-" + name),
        null,
        new NodeStatus(List.of(), Optional.empty(), "", "", List.of(), List.of(plugins)));
  }
}
