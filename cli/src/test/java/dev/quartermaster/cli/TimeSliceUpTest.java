package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The README's time-slicing section, run as a user types it against a real {@code qm up}: every
 * command of its shell block, in order, checked for what its comment says (the commands are read
 * from the README and must be exactly this test's steps). gpu-0 of node-1 is shared by 4, a job's
 * three tasks get three replicas of it with the GPU's uuid, the mode cannot be turned off under
 * them, and the GPU is whole again once they are gone.
 */
@Timeout(300)
class TimeSliceUpTest {
  static final Duration BOUND = Duration.ofSeconds(60);
  static final String SECTION = "## Sharing a GPU by turns (time-slicing)";

  @Test
  void threeTasksTakeTurnsOnOneGpuAndItIsWholeAgainAfter() throws Exception {
    var commands = ReadmeSection.of(SECTION).commands();
    var expected = new ArrayList<String>();
    try (var up = UpProcess.start("qmt", "--nodes", "1")) {
      expected.add("./qm node share node-1 --gpu gpu-0 time-sliced --replicas 4");
      assertThat(
              up.qm("node", "share", "node-1", "--gpu", "gpu-0", "time-sliced", "--replicas", "4"))
          .isEqualTo("node/node-1 time-sliced by 4 for gpu-0\n");

      expected.add("./qm describe node node-1");
      var idle =
          Pattern.compile(
              "Shared GPUs:\n  gpu-0:\n    Mode: +time-sliced by 4\n    Clients: +0/4\n"
                  + "    Replicas: +\\Q[·][·][·][·]\\E\n    Isolation: +time-sliced: clients take"
                  + " turns on the whole GPU; nothing isolates their memory or faults\n");
      up.await(
          "describe node draws gpu-0's four free replicas",
          BOUND,
          () -> idle.matcher(up.qm("describe", "node", "node-1")).find());

      expected.add("./qm get events --for node/node-1");
      up.await(
          "a SharingChanged event on node-1",
          BOUND,
          () ->
              Pattern.compile(
                      "Normal\\s+SharingChanged\\s+node/node-1\\s+1\\s+gpu-0: time-sliced by 4")
                  .matcher(up.qm("get", "events", "--for", "node/node-1"))
                  .find());

      expected.add("./qm apply -f examples/timeslice.yaml");
      assertThat(up.qm("apply", "-f", "examples/timeslice.yaml"))
          .isEqualTo("deviceclass/timeslice unchanged\nworkload/ts-notebooks created\n");

      expected.add("./qm get claims");
      var three =
          Pattern.compile(
              "(\nts-notebooks-nb-[012]-turn\\s+prepared\\s+node-1\\s+gpu-0-ts-[0-3]\\s[^\n]*){3}");
      up.await(
          "three claims prepared on replicas of node-1's gpu-0",
          BOUND,
          () -> three.matcher(up.qm("get", "claims")).find());
      var devices = new java.util.HashSet<String>();
      Pattern.compile("gpu-0-ts-[0-3]")
          .matcher(up.qm("get", "claims"))
          .results()
          .forEach(m -> devices.add(m.group()));
      assertThat(devices).as("three distinct replicas").hasSize(3);

      expected.add("./qm logs ts-notebooks-nb-0");
      up.await(
          "the task says which GPU it takes turns on",
          BOUND,
          () ->
              up.qm("logs", "ts-notebooks-nb-0")
                  .matches("(?s).*taking turns on GPU-[0-9a-f-]+\n.*"));

      expected.add("./qm describe node node-1");
      assertThat(up.qm("describe", "node", "node-1"))
          .containsPattern(
              "    Clients: +3/4\n    Replicas: +\\[claim/ts-notebooks-nb-\\d-turn\\]");

      expected.add("./qm get nodes");
      assertThat(up.qm("get", "nodes")).containsPattern("\nnode-1\\s.*\\s-\\s+1/4\\s");

      expected.add("./qm node share node-1 --gpu gpu-0 off");
      var refused = new StringWriter();
      assertThat(up.cli(refused, "node", "share", "node-1", "--gpu", "gpu-0", "off")).isEqualTo(1);
      assertThat(refused.toString())
          .startsWith("error: ")
          .contains(
              "spec.sharing: the mode of gpu-0 may change only while nothing holds the GPU or a"
                  + " part of it (a slice, replica or share); held by claim/ts-notebooks-nb-");

      expected.add("./qm delete workload ts-notebooks");
      assertThat(up.qm("delete", "workload", "ts-notebooks"))
          .startsWith("workload/ts-notebooks marked for deletion");

      expected.add("./qm get claims");
      up.await(
          "the job's claims released",
          BOUND,
          () -> !up.qm("get", "claims").contains("ts-notebooks"));

      expected.add("./qm node share node-1 --gpu gpu-0 off");
      assertThat(up.qm("node", "share", "node-1", "--gpu", "gpu-0", "off"))
          .isEqualTo("node/node-1 whole gpu-0\n");

      expected.add("./qm describe node node-1");
      up.await(
          "gpu-0 offered whole again",
          BOUND,
          () -> {
            var node = up.qm("describe", "node", "node-1");
            return Pattern.compile("\n  gpu-0 +gpu ").matcher(node).find()
                && !node.contains("Shared GPUs:");
          });

      assertThat(commands)
          .as("the README's time-slicing commands are this test's steps, in order")
          .containsExactlyElementsOf(expected);
      up.passed();
    }
  }
}
