package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The README's MPS section, run as a user types it against a real {@code qm up}: every command of
 * its shell block, in order, checked for what its comment says (the commands are read from the
 * README and must be exactly this test's steps). gpu-0 of node-1 is shared by MPS, two jobs get
 * shares of 60 and 40 % with their limits in their environment, the mode cannot be turned off under
 * them, and the GPU is whole again once they are gone.
 */
@Timeout(300)
class MpsUpTest {
  static final Duration BOUND = Duration.ofSeconds(60);
  static final String SECTION = "## Sharing a GPU by MPS";

  @Test
  void twoJobsShareOneGpuWithTheirLimitsAndItIsWholeAgainAfter() throws Exception {
    var commands = ReadmeSection.of(SECTION).commands();
    var expected = new ArrayList<String>();
    try (var up = UpProcess.start("qmm", "--nodes", "1")) {
      expected.add("./qm node share node-1 --gpu gpu-0 mps --clients 8");
      assertThat(up.qm("node", "share", "node-1", "--gpu", "gpu-0", "mps", "--clients", "8"))
          .isEqualTo("node/node-1 MPS for up to 8 clients on gpu-0\n");

      expected.add("./qm describe node node-1");
      var idle =
          Pattern.compile(
              "MPS GPUs:\n  gpu-0:\n    Mode: +MPS, up to 8 clients\n    Used: +compute 0/100 %,"
                  + " memory 0/79 GiB, clients 0/8\n");
      up.await(
          "describe node shows gpu-0 shared by MPS, nothing used",
          BOUND,
          () -> idle.matcher(up.qm("describe", "node", "node-1")).find());

      expected.add("./qm apply -f examples/mps.yaml");
      assertThat(up.qm("apply", "-f", "examples/mps.yaml"))
          .isEqualTo(
              "deviceclass/mps unchanged\nworkload/mps-serve created\nworkload/mps-batch created\n");

      expected.add("./qm get claims");
      var two =
          Pattern.compile(
              "\nmps-batch-b-0-share\\s+prepared\\s+node-1\\s+gpu-0-mps-40pct-20gib-0\\s[^\n]*"
                  + "\nmps-serve-s-0-share\\s+prepared\\s+node-1\\s+gpu-0-mps-60pct-40gib-0\\s");
      up.await(
          "both shares prepared on node-1's gpu-0",
          BOUND,
          () -> two.matcher(up.qm("get", "claims")).find());

      expected.add("./qm describe claim mps-serve-s-0-share");
      assertThat(up.qm("describe", "claim", "mps-serve-s-0-share"))
          .containsPattern(
              "NAME +CLASS +COUNT +SELECTORS +SHARE\n +share +mps +1 +<none> +60 % compute, 40Gi"
                  + " memory\n");

      expected.add("./qm logs mps-serve-s-0");
      up.await(
          "the task says its limits",
          BOUND,
          () ->
              up.qm("logs", "mps-serve-s-0")
                  .matches("(?s).*MPS client: 60 % of GPU-[0-9a-f-]+, memory cap 0=40G\n.*"));

      expected.add("./qm describe task mps-serve-s-0");
      assertThat(up.qm("describe", "task", "mps-serve-s-0"))
          .containsPattern(
              "MPS Shares:\n  gpu-0-mps-60pct-40gib-0: +CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=60\n +"
                  + "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=40G\n  Isolation: +MPS: .*one fault"
                  + " domain");

      expected.add("./qm describe node node-1");
      assertThat(up.qm("describe", "node", "node-1"))
          .containsPattern(
              "    Used: +compute 100/100 %, memory 60/79 GiB, clients 2/8\n"
                  + "    Compute: +\\Q[11111111222222222222]\\E\n");

      expected.add("./qm get nodes");
      assertThat(up.qm("get", "nodes")).containsPattern("\nnode-1\\s.*\\s-\\s+0%/19Gi\\s");

      expected.add("./qm node share node-1 --gpu gpu-0 off");
      var refused = new StringWriter();
      assertThat(up.cli(refused, "node", "share", "node-1", "--gpu", "gpu-0", "off")).isEqualTo(1);
      assertThat(refused.toString())
          .startsWith("error: ")
          .contains(
              "spec.sharing: the mode of gpu-0 may change only while nothing holds the GPU or a"
                  + " part of it (a slice, replica or share); held by claim/mps-");

      expected.add("./qm delete -f examples/mps.yaml");
      assertThat(up.qm("delete", "-f", "examples/mps.yaml")).contains("workload/mps-serve");

      expected.add("./qm get claims");
      up.await("the jobs' shares released", BOUND, () -> !up.qm("get", "claims").contains("mps-"));

      expected.add("./qm node share node-1 --gpu gpu-0 off");
      assertThat(up.qm("node", "share", "node-1", "--gpu", "gpu-0", "off"))
          .isEqualTo("node/node-1 whole gpu-0\n");

      assertThat(commands)
          .as("the README's MPS commands are this test's steps, in order")
          .containsExactlyElementsOf(expected);
      up.passed();
    }
  }
}
