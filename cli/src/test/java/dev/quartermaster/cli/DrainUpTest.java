package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code qm node drain} on a real {@code qm up}, as an operator runs it: GPU workers and workers
 * with a scratch volume each run on both nodes; node-1 is drained. Afterwards nothing of theirs is
 * left on node-1 — no task, no claim allocated or prepared there, no device in its allocation
 * record, no volume held there — every replica runs again on node-2, and each moved scratch worker
 * still reads the line it wrote before the move (nothing lost).
 */
@Timeout(300)
class DrainUpTest {
  private static final Duration BOUND = Duration.ofSeconds(90);

  @Test
  void drainEmptiesTheNodeAndEveryReplicaRunsElsewhereWithItsData() throws Exception {
    try (var up = UpProcess.start("qmd")) {
      var api = up.api();
      var out = new StringWriter();
      assertThat(
              up.cli(
                  out,
                  "apply",
                  "--wait",
                  "--timeout",
                  "90s",
                  "-f",
                  "examples/deviceclass.yaml",
                  "-f",
                  "examples/training.yaml",
                  "-f",
                  "examples/volumes.yaml"))
          .as(out.toString())
          .isZero();
      // apply --wait returned only when every replica ran.
      assertThat(out.toString()).contains("ready: 7 object(s)");
      assertThat(running(api)).hasSize(8);
      up.await(
          "8 tasks Running on both nodes",
          BOUND,
          () ->
              running(api).size() == 8
                  && running(api).stream().map(DrainUpTest::node).distinct().count() == 2);
      var moved =
          running(api).stream()
              .filter(t -> node(t).equals("node-1"))
              .map(t -> t.metadata().name())
              .toList();
      assertThat(moved).isNotEmpty();

      var drain = new StringWriter();
      assertThat(up.cli(drain, "node", "drain", "node-1", "--timeout", "120s"))
          .as(drain.toString())
          .isZero();
      assertThat(drain.toString())
          .contains("node/node-1 cordoned and draining")
          .contains("node/node-1 drained in");

      // The moment the drain returns, node-1 holds nothing of theirs.
      assertThat(api.list(Kinds.TASK).items()).filteredOn(t -> node(t).equals("node-1")).isEmpty();
      assertThat(api.list(Kinds.RESOURCE_CLAIM).items())
          .filteredOn(
              c ->
                  c.status().allocation().map(a -> a.node().equals("node-1")).orElse(false)
                      || c.status().prepare().containsKey("node-1"))
          .isEmpty();
      assertThat(
              api.get(Kinds.NODE_ALLOCATION, "node-1").map(a -> a.spec().devices()).orElseThrow())
          .isEmpty();
      assertThat(api.list(Kinds.VOLUME).items())
          .flatMap(v -> v.status().claims())
          .filteredOn(h -> h.node().equals("node-1"))
          .isEmpty();
      var node1 = api.get(Kinds.NODE, "node-1").orElseThrow();
      assertThat(node1.spec().unschedulable()).isTrue();
      assertThat(node1.metadata().labels()).doesNotContainKey(Node.DRAINING_LABEL);

      up.await(
          "every replica Running again, all on node-2",
          BOUND,
          () ->
              running(api).size() == 8
                  && running(api).stream().allMatch(t -> node(t).equals("node-2")));
      for (var name : moved.stream().filter(n -> n.startsWith("scratch-")).toList()) {
        var logs = new StringWriter();
        up.await(
            name + " printed its file again",
            BOUND,
            () -> {
              logs.getBuffer().setLength(0);
              return up.cli(logs, "logs", name) == 0
                  && logs.toString().lines().filter(l -> l.startsWith("written at")).count() >= 2;
            });
      }
      var events = new StringWriter();
      assertThat(up.cli(events, "get", "events", "--for", "node/node-1")).isZero();
      assertThat(events.toString()).contains("Draining").contains("Drained");
      var nodes = new StringWriter();
      assertThat(up.cli(nodes, "get", "nodes")).isZero();
      assertThat(
              nodes
                  .toString()
                  .lines()
                  .filter(l -> l.startsWith("node-1"))
                  .findFirst()
                  .orElseThrow())
          .contains("cordoned");
      up.passed();
    }
  }

  private static List<Task> running(ApiClient api) {
    return api.list(Kinds.TASK).items().stream()
        .filter(t -> t.status().phase() == TaskPhase.Running)
        .toList();
  }

  private static String node(Task t) {
    return t.status().node().or(() -> t.spec().node()).or(() -> Optional.of("")).get();
  }
}
