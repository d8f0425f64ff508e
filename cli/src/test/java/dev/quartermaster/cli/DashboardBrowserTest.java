package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The dashboard end to end in a real browser: a default {@code qm up} in a child JVM, and {@code
 * dashboard-e2e/dashboard.test.mjs} driving Debian's headless Chromium through playwright-core
 * against it (log in, see the nodes, apply a workload through the API, watch its tasks become
 * Running without a reload, read why a task waits, see the default queue that admitted it, see a
 * gang that cannot be placed wait and read why, see a MIG GPU drawn as its positions and holders;
 * last, grow the cluster by 10,000 nodes and read them in a new tab: in pages of 500, a windowed
 * list, a burst of heartbeats drawn a frame at a time, a deletion seen live in both tabs).
 * Screenshots go to {@code cli/target/dashboard-screenshots/}.
 *
 * <p>Without Node, Chromium or playwright-core the test is skipped with how to install them, except
 * under {@code CI=true}, where {@code .ci/run} installs them and their absence is a failure.
 */
@Timeout(420)
class DashboardBrowserTest {
  private static final long SCRIPT_BOUND_SECONDS = 300;

  @Test
  void anOperatorLogsInSeesTheClusterAndWatchesAWorkloadLive() throws Exception {
    var found = BrowserTools.find(ExamplesTest.REPO);
    if (found.tools().isEmpty()) {
      if ("true".equals(System.getenv("CI"))) {
        throw new AssertionError("CI=true and the browser test cannot run: " + found.explain());
      }
      Assumptions.abort("the dashboard browser test needs " + found.explain());
    }
    var tools = found.tools().get();
    var shots = Path.of("target", "dashboard-screenshots").toAbsolutePath();
    try (var up = UpProcess.start("qmd")) {
      var output = up.data().getParent().resolve("browser.log");
      var pb =
          new ProcessBuilder(tools.node().toString(), "dashboard.test.mjs")
              .directory(tools.e2eDir().toFile())
              .redirectErrorStream(true)
              .redirectOutput(output.toFile());
      pb.environment().put("QM_URL", up.uri().toString());
      pb.environment().put("QM_TOKEN_FILE", up.data().resolve("admin.token").toString());
      pb.environment().put("QM_SCREENSHOTS", shots.toString());
      pb.environment().put("CHROMIUM", tools.chromium().toString());
      var script = pb.start();
      boolean ended = script.waitFor(SCRIPT_BOUND_SECONDS, TimeUnit.SECONDS);
      if (!ended) {
        script.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
      var log = Files.readString(output);
      System.out.println("dashboard.test.mjs:\n" + log + "screenshots: " + shots);
      assertThat(ended)
          .as("the browser script ended within %ss:\n%s", SCRIPT_BOUND_SECONDS, log)
          .isTrue();
      assertThat(script.exitValue()).as("the browser script's exit code:\n%s", log).isZero();
      assertThat(log)
          .contains("step: scale the workers past the 8 GPUs")
          .contains("WaitingForAllocation")
          .contains("queue row: default")
          .contains("waiting gang: gang-job/workers: gang gang-job/workers needs 2 × (1 gpu)")
          .contains("mig picture: gpu-0 MIG Dynamic mig 3/7 compute free")
          .contains("claim/mig-small")
          .contains("fleet tab: first rows in")
          .contains("both tabs count")
          .endsWith("PASS\n");
      assertThat(shots.resolve("04-waiting-task.png")).isRegularFile();
      up.passed();
    }
  }
}
