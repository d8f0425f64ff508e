package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.ClaimConditions;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The README's MIG section, run as a user types it against a real {@code qm up --simulated-model
 * H200}: every command of its shell block, in order, checked for what its comment says it prints
 * (the commands are read from the README and must be exactly this test's steps). gpu-0 of node-1 is
 * put in dynamic MIG mode, two jobs get disjoint slices of it, a claim for all of it waits while
 * they hold them, the mode cannot be turned off under them, and the whole-GPU claim is prepared
 * once they are deleted.
 */
@Timeout(300)
class MigUpTest {
  static final Duration BOUND = Duration.ofSeconds(60);
  static final String SECTION = "## Slicing GPUs with MIG";

  @Test
  void twoJobsGetDisjointSlicesOfOneGpuAndAClaimForAllOfItWaitsForThem() throws Exception {
    var commands = ReadmeSection.of(SECTION).commands();
    var expected = new ArrayList<String>();
    expected.add("./qm up --simulated-model H200");
    // One node: the section's commands use node-1 only, and each agent costs a second of start.
    try (var up = UpProcess.start("qmm", "--simulated-model", "H200", "--nodes", "1")) {
      expected.add("./qm node mig node-1 --gpu gpu-0 dynamic");
      assertThat(up.qm("node", "mig", "node-1", "--gpu", "gpu-0", "dynamic"))
          .isEqualTo("node/node-1 MIG Dynamic for gpu-0\n");

      expected.add("./qm describe node node-1");
      // The agent switches the GPU at its next look at the wish, then publishes its slices.
      var idle =
          Pattern.compile(
              "MIG GPUs:\n  gpu-0:\n    Mode: +Dynamic\n    Model: +H200-141GB\n"
                  + "    Free: +7/7 compute slices\n    Positions: +\\Q[·][·][·][·][·][·][·][·]\\E\n");
      up.await(
          "describe node draws gpu-0 in Dynamic mode, all free",
          BOUND,
          () -> idle.matcher(up.qm("describe", "node", "node-1")).find());
      // Its agent says it switched: the MigReady condition and a MigModeChanged event.
      up.await(
          "MigReady True and a MigModeChanged event on node-1",
          BOUND,
          () ->
              Pattern.compile(
                          "\n  MigReady\\s+True\\s+MigModesApplied\\s+MIG as wished: gpu-0 Dynamic\\s")
                      .matcher(up.qm("describe", "node", "node-1"))
                      .find()
                  && Pattern.compile(
                          "Normal\\s+MigModeChanged\\s+node/node-1\\s+1\\s+gpu-0: MIG mode on \\(Dynamic\\)")
                      .matcher(up.qm("get", "events", "--for", "node/node-1"))
                      .find());

      expected.add("./qm apply -f examples/mig.yaml");
      assertThat(up.qm("apply", "-f", "examples/mig.yaml"))
          .isEqualTo(
              """
              deviceclass/mig-1g.18gb created
              deviceclass/mig-3g.71gb created
              deviceclass/mig-7g.141gb created
              deviceclass/mig-2g-or-more created
              workload/mig-small created
              workload/mig-medium created
              """);

      expected.add("./qm get claims");
      // Which job is placed first decides the layout (README): 1g first at 6, then 3g at 0; or 3g
      // first at 4, then 1g at 0. Either way one GPU, disjoint, 3 compute slices left.
      var oneGFirst =
          Pattern.compile(
              "\nmig-medium-train-0-slice\\s+prepared\\s+node-1\\s+gpu-0-mig-3g4m-0\\s.*"
                  + "\nmig-small-infer-0-slice\\s+prepared\\s+node-1\\s+gpu-0-mig-1g1m-6\\s",
              Pattern.DOTALL);
      var threeGFirst =
          Pattern.compile(
              "\nmig-medium-train-0-slice\\s+prepared\\s+node-1\\s+gpu-0-mig-3g4m-4\\s.*"
                  + "\nmig-small-infer-0-slice\\s+prepared\\s+node-1\\s+gpu-0-mig-1g1m-0\\s",
              Pattern.DOTALL);
      up.await(
          "both slices prepared on node-1's gpu-0, disjoint",
          BOUND,
          () -> {
            var claims = up.qm("get", "claims");
            return oneGFirst.matcher(claims).find() || threeGFirst.matcher(claims).find();
          });
      boolean smallFirst = oneGFirst.matcher(up.qm("get", "claims")).find();

      expected.add("./qm get nodes");
      assertThat(up.qm("get", "nodes")).containsPattern("\nnode-1\\s.*\\s3/7\\s");

      expected.add("./qm describe node node-1");
      assertThat(up.qm("describe", "node", "node-1"))
          .contains(
              smallFirst
                  ? "Positions:  [3g.71gb: claim/mig-medium-train-0-slice][·][·]"
                      + "[1g.18gb: claim/mig-small-infer-0-slice][·]\n"
                  : "Positions:  [1g.18gb: claim/mig-small-infer-0-slice][·][·][·]"
                      + "[3g.71gb: claim/mig-medium-train-0-slice]\n");

      expected.add("./qm apply -f examples/mig-whole.yaml");
      assertThat(up.qm("apply", "-f", "examples/mig-whole.yaml"))
          .isEqualTo("workload/mig-whole created\n");

      expected.add("./qm get claims");
      // Pending because the allocator looked and found no room, not because it has not looked yet.
      up.await(
          "the allocator says why mig-whole-big-0-slice waits",
          BOUND,
          () ->
              up.api()
                  .get(Kinds.RESOURCE_CLAIM, "mig-whole-big-0-slice")
                  .flatMap(c -> Condition.find(c.status().conditions(), ClaimConditions.ALLOCATED))
                  .filter(c -> c.status() == Condition.Status.False)
                  .isPresent());
      assertThat(up.qm("get", "claims"))
          .containsPattern("\nmig-whole-big-0-slice\\s+pending\\s+<none>\\s+<none>\\s");

      expected.add("./qm node mig node-1 --gpu gpu-0 off");
      var refused = new StringWriter();
      assertThat(up.cli(refused, "node", "mig", "node-1", "--gpu", "gpu-0", "off")).isEqualTo(1);
      assertThat(refused.toString())
          .startsWith("error: ")
          .contains(
              " the mode of gpu-0 may change only while nothing holds the GPU or a part of it (a slice, replica or share);"
                  + " held by claim/mig-small-infer-0-slice (gpu-0-mig-1g1m-"
                  + (smallFirst ? "6" : "0")
                  + "); claim/mig-medium-train-0-slice (gpu-0-mig-3g4m-"
                  + (smallFirst ? "0" : "4")
                  + ")");

      expected.add("./qm delete workload mig-small && ./qm delete workload mig-medium");
      assertThat(up.qm("delete", "workload", "mig-small"))
          .startsWith("workload/mig-small marked for deletion");
      assertThat(up.qm("delete", "workload", "mig-medium"))
          .startsWith("workload/mig-medium marked for deletion");

      expected.add("./qm get claims");
      up.await(
          "mig-whole-big-0-slice prepared on all of gpu-0, the slices gone",
          BOUND,
          () ->
              up.qm("get", "claims")
                  .matches(
                      "NAME\\s.*\nmig-whole-big-0-slice\\s+prepared\\s+node-1\\s+gpu-0-mig-7g8m-0\\s+\\S+\n"));

      assertThat(commands)
          .as("the README's MIG commands are this test's steps, in order")
          .containsExactlyElementsOf(expected);
      up.passed();
    }
  }
}
