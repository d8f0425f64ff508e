package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a kubectl user expects of the CLI: documents for empty lists, scale, delete by file or
 * selector, fence's care.
 */
class KubectlHabitsTest {
  @TempDir Path dir;

  private CliServer cli;

  @BeforeEach
  void start() throws Exception {
    cli = CliServer.start(dir);
  }

  @AfterEach
  void stop() {
    cli.close();
  }

  @Test
  void anEmptyListIsAnEmptyListDocumentInJsonAndYaml() throws Exception {
    var json = cli.run("get", "tasks", "-o", "json");
    assertThat(json.exit()).isZero();
    assertThat(json.err()).isEmpty();
    var tree = ObjectCodec.json().readTree(json.out());
    assertThat(tree.get("kind").asText()).isEqualTo("List");
    assertThat(tree.get("items").isArray()).isTrue();
    assertThat(tree.get("items")).isEmpty();

    var yaml = cli.run("get", "volumes", "-o", "yaml");
    assertThat(yaml.exit()).isZero();
    assertThat(yaml.out()).isEqualTo("kind: List\nitems: []\n");

    var table = cli.run("get", "tasks");
    assertThat(table.out()).isEmpty();
    assertThat(table.err()).contains("No tasks found.");
  }

  /**
   * Issue 48, item 8: {@code get KIND/NAME}, several names in one get or delete, {@code -o name},
   * {@code --ignore-not-found}, and a manifest with our {@code apiVersion}.
   */
  @Test
  void kindSlashNameSeveralNamesOutputNameIgnoreNotFoundAndApiVersion() throws Exception {
    var manifest = dir.resolve("queues.yaml");
    java.nio.file.Files.writeString(
        manifest,
        """
        apiVersion: quartermaster.dev/v1
        kind: Queue
        metadata: {name: qa}
        spec: {}
        ---
        apiVersion: quartermaster.dev/v1
        kind: Queue
        metadata: {name: qb}
        spec: {}
        """);
    assertThat(cli.run("apply", "-f", manifest.toString()).exit()).isZero();

    var slash = cli.run("get", "queue/qa", "-o", "name");
    assertThat(slash.exit()).isZero();
    assertThat(slash.out()).isEqualTo("queue/qa\n");
    var both = cli.run("get", "queues", "qb", "qa", "-o", "name");
    assertThat(both.out()).isEqualTo("queue/qb\nqueue/qa\n");
    var table = cli.run("get", "queue/qa", "queue/qb");
    assertThat(table.out().lines().toList()).hasSize(3);

    var missing = cli.run("get", "queues", "qa", "nope");
    assertThat(missing.exit()).isEqualTo(1);
    assertThat(missing.out()).contains("qa");
    assertThat(missing.err()).contains("error: queue/nope not found");
    var ignored = cli.run("get", "queue", "nope", "--ignore-not-found");
    assertThat(ignored.exit()).isZero();
    assertThat(ignored.out()).isEmpty();
    assertThat(ignored.err()).isEmpty();

    var gone = cli.run("delete", "queue/qa", "queue/qb");
    assertThat(gone.exit()).isZero();
    assertThat(gone.out()).contains("queue/qa deleted").contains("queue/qb deleted");
    var again = cli.run("delete", "queue", "qa", "--ignore-not-found");
    assertThat(again.exit()).isZero();
    assertThat(again.out()).isEmpty();
    assertThat(cli.run("delete", "queue", "qa").exit()).isNotZero();
  }

  @Test
  void scaleSetsOneGroupsReplicasAndSaysFromWhatToWhat() {
    assertThat(
            cli.run("apply", "-f", "examples/deviceclass.yaml", "-f", "examples/training.yaml")
                .exit())
        .isZero();

    var scaled = cli.run("scale", "workload", "training", "--group", "workers", "--replicas", "6");
    assertThat(scaled.exit()).as(scaled.err()).isZero();
    assertThat(scaled.out()).isEqualTo("workload/training scaled (group workers: 4 -> 6)\n");
    var workload = cli.registry.get(Kinds.WORKLOAD, "training").orElseThrow();
    assertThat(workload.spec().groups())
        .extracting(g -> g.name() + "=" + g.replicas())
        .containsExactly("head=1", "workers=6");

    var ambiguous = cli.run("scale", "workload", "training", "--replicas", "2");
    assertThat(ambiguous.exit()).isEqualTo(1);
    assertThat(ambiguous.err()).contains("has 2 groups (head, workers): say which with --group");
    var unknown = cli.run("scale", "workload", "training", "--group", "nope", "--replicas", "2");
    assertThat(unknown.err()).contains("has no group nope; its groups: head, workers");
    var negative =
        cli.run("scale", "workload", "training", "--group", "workers", "--replicas", "-1");
    assertThat(negative.exit()).isEqualTo(2);
    assertThat(negative.err()).contains("--replicas must be >= 0");
    var missing = cli.run("scale", "workload", "ghost", "--group", "workers", "--replicas", "1");
    assertThat(missing.err()).contains("workload/ghost not found");
    assertThat(
            cli.registry
                .get(Kinds.WORKLOAD, "training")
                .orElseThrow()
                .spec()
                .groups()
                .getLast()
                .replicas())
        .as("nothing changed by the refused ones")
        .isEqualTo(6);
  }

  /**
   * A scale writes back the rest of the spec as it was: the workload's gang too (a spec rebuilt
   * from the groups and compute domain alone would drop it, and the launcher and its workers would
   * no longer be placed together).
   */
  @Test
  void scaleKeepsTheWorkloadsGang() {
    var applied =
        cli.run(
            "apply", "-f", "examples/deviceclass.yaml", "-f", "examples/gang-launcher-job.yaml");
    assertThat(applied.exit()).as(applied.err()).isZero();
    var before = cli.registry.get(Kinds.WORKLOAD, "launcher-job").orElseThrow().spec();

    var scaled =
        cli.run("scale", "workload", "launcher-job", "--group", "workers", "--replicas", "2");
    assertThat(scaled.exit()).as(scaled.err()).isZero();
    var after = cli.registry.get(Kinds.WORKLOAD, "launcher-job").orElseThrow().spec();
    assertThat(after.gang()).isPresent().isEqualTo(before.gang());
    assertThat(after.groups().getLast().replicas()).isEqualTo(2);
  }

  @Test
  void deleteTakesManifestsAndSelectors() throws Exception {
    var applied =
        cli.run("apply", "-f", "examples/deviceclass.yaml", "-f", "examples/computedomain.yaml");
    assertThat(applied.exit()).as(applied.err()).isZero();
    var byFile =
        cli.run("delete", "-f", "examples/deviceclass.yaml", "-f", "examples/computedomain.yaml");
    assertThat(byFile.exit()).as(byFile.err()).isZero();
    assertThat(byFile.outLines())
        .hasSameSizeAs(applied.outLines())
        .allMatch(l -> l.endsWith(" deleted") || l.contains("marked for deletion"));
    assertThat(cli.registry.get(Kinds.DEVICE_CLASS, "gpu")).isEmpty();

    var again = cli.run("delete", "-f", "examples/deviceclass.yaml");
    assertThat(again.exit()).as("one object, gone: the error names it").isEqualTo(1);

    for (var name : List.of("a", "b", "c")) {
      var labels = name.equals("c") ? Map.of("team", "other") : Map.of("team", "ml");
      cli.registry.create(
          new Node(ObjectMeta.named(name).withLabels(labels), NodeSpec.EMPTY, NodeStatus.EMPTY));
    }
    var bySelector = cli.run("delete", "node", "-l", "team=ml");
    assertThat(bySelector.exit()).as(bySelector.err()).isZero();
    assertThat(bySelector.outLines()).containsExactly("node/a deleted", "node/b deleted");
    assertThat(cli.registry.get(Kinds.NODE, "c")).isPresent();

    var none = cli.run("delete", "node", "-l", "team=nobody");
    assertThat(none.exit()).isZero();
    assertThat(none.err()).contains("No resources found");

    var stdin =
        cli.runWithStdin(
            Files.readString(ExamplesTest.REPO.resolve("examples/deviceclass.yaml")),
            "apply",
            "-f",
            "-");
    assertThat(stdin.exit()).isZero();
    var fromStdin =
        cli.runWithStdin(
            Files.readString(ExamplesTest.REPO.resolve("examples/deviceclass.yaml")),
            "delete",
            "-f",
            "-");
    assertThat(fromStdin.outLines())
        .contains("deviceclass/gpu deleted")
        .allMatch(l -> l.endsWith(" deleted"));

    assertThat(cli.run("delete", "node").err()).contains("give its NAME, or -l SELECTOR");
    assertThat(cli.run("delete", "node", "c", "-l", "team=ml").err())
        .contains("cannot be used together");
    assertThat(cli.run("delete", "-f", "examples/deviceclass.yaml", "node").err())
        .contains("-f takes no KIND");
  }

  @Test
  void fenceRefusesANodeWhoseAgentIsAliveUnlessForcedAndSaysWhatItHandsOver() {
    var alive =
        new Condition(
            "AgentReady", Condition.Status.True, "Heartbeat", "agent is running", Optional.empty());
    cli.registry.create(
        new Node(
            ObjectMeta.named("node-3"),
            NodeSpec.EMPTY,
            NodeStatus.EMPTY.withConditions(List.of(alive))));

    var refused = cli.run("node", "fence", "node-3");
    assertThat(refused.exit()).isEqualTo(1);
    assertThat(refused.err()).contains("node node-3's agent is alive").contains("--force");
    assertThat(cli.registry.get(Kinds.NODE, "node-3").orElseThrow().spec().fenced()).isFalse();

    var forced = cli.run("node", "fence", "node-3", "--force");
    assertThat(forced.exit()).as(forced.err()).isZero();
    assertThat(forced.outLines().getFirst())
        .isEqualTo("node/node-3 fenced (forced: its agent was alive)");
    assertThat(forced.out())
        .contains("tasks failed and replaced: none")
        .contains("volume claims released without the node: none");
    assertThat(cli.registry.get(Kinds.NODE, "node-3").orElseThrow().spec().fenced()).isTrue();

    var unfenced = cli.run("node", "unfence", "node-3");
    assertThat(unfenced.out())
        .isEqualTo(
            "node/node-3 unfenced\nstill cordoned, as a fence leaves it: `qm node uncordon node-3`"
                + " gives it new work once you trust it\n");
    var spec = cli.registry.get(Kinds.NODE, "node-3").orElseThrow().spec();
    assertThat(spec.fenced()).isFalse();
    assertThat(spec.unschedulable()).as("unfence leaves the cordon to uncordon").isTrue();

    var lost =
        new Condition(
            "AgentReady",
            Condition.Status.False,
            "HeartbeatMissed",
            "no heartbeat",
            Optional.empty());
    cli.registry.create(
        new Node(
            ObjectMeta.named("node-4"),
            NodeSpec.EMPTY,
            NodeStatus.EMPTY.withConditions(List.of(lost))));
    assertThat(cli.run("node", "fence", "node-4").exit())
        .as("a node whose agent is lost is fenced without --force")
        .isZero();
  }

  @Test
  void describeNodeCountsFreeChannelsAndListsThemOnlyWhenAsked() {
    cli.registry.create(new Node(ObjectMeta.named("node-1"), NodeSpec.EMPTY, NodeStatus.EMPTY));
    var devices = new ArrayList<Device>();
    devices.add(new Device("gpu-0", "gpu", Map.of("model", "H100"), null, null));
    for (int i = 0; i < 2048; i++) {
      devices.add(new Device("channel-" + i, "channel", null, Device.Health.Healthy, null));
    }
    cli.registry.create(
        new DeviceSlice(ObjectMeta.named("node-1"), new DeviceSliceSpec("node-1", devices), null));

    var summary = cli.run("describe", "node", "node-1");
    assertThat(summary.exit()).as(summary.err()).isZero();
    assertThat(summary.out())
        .contains("gpu-0")
        .doesNotContain("channel-7 ")
        .contains("Free Channels (counted; --channels lists each):")
        .containsPattern("Healthy:\\s+2048");
    assertThat(summary.outLines().size()).as("fits a screen").isLessThan(40);

    var all = cli.run("describe", "node", "node-1", "--channels");
    assertThat(all.out()).contains("channel-2047").doesNotContain("Free Channels");
  }

  /**
   * {@code get -w} starts with exactly the lines {@code get} prints, columns and order (events
   * oldest first).
   */
  @Test
  void aWatchStartsWithThePlainListingsLines() {
    var clock =
        java.time.Clock.fixed(Instant.parse("2026-03-01T12:00:00Z"), java.time.ZoneOffset.UTC);
    var nodes =
        List.of(
            new Node(ObjectMeta.named("node-1"), NodeSpec.EMPTY, NodeStatus.EMPTY),
            new Node(
                ObjectMeta.named("a-much-longer-node-name-7"), NodeSpec.EMPTY, NodeStatus.EMPTY));
    var plain = new java.io.StringWriter();
    new dev.quartermaster.cli.output.ObjectPrinter<>(
            Kinds.NODE,
            dev.quartermaster.cli.output.OutputFormat.TABLE,
            clock,
            new java.io.PrintWriter(plain))
        .printList(nodes);
    var watched = new java.io.StringWriter();
    new dev.quartermaster.cli.output.ObjectPrinter<>(
            Kinds.NODE,
            dev.quartermaster.cli.output.OutputFormat.TABLE,
            clock,
            new java.io.PrintWriter(watched))
        .startStream(nodes);
    assertThat(watched.toString()).isEqualTo(plain.toString());
  }
}
