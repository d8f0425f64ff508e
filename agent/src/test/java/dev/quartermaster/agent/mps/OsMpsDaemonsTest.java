package dev.quartermaster.agent.mps;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MPS daemons as real processes: a GPU's daemon gets its pipe and log directories before it
 * starts, outlives the agent that started it and is adopted by the next one (never started twice),
 * and is stopped by name. The stand-in runs where {@code nvidia-cuda-mps-control} is not on the
 * PATH.
 */
class OsMpsDaemonsTest {
  @TempDir Path dir;

  @Test
  void aDaemonIsStartedWithItsDirectoriesAdoptedByTheNextAgentAndStopped() throws Exception {
    var paths = new MpsPaths(dir.resolve("mps"));
    var first = new OsMpsDaemons(paths, OsMpsDaemons.STAND_IN);
    first.start("gpu-1");
    assertThat(paths.pipe("gpu-1")).isDirectory();
    assertThat(paths.log("gpu-1")).isDirectory();
    assertThat(first.running()).containsExactly("gpu-1");

    // The agent is gone (killed): the next one finds the daemon by its pid file and start.
    var next = new OsMpsDaemons(paths, OsMpsDaemons.STAND_IN);
    assertThat(next.running()).containsExactly("gpu-1");
    var pid = java.nio.file.Files.readString(dir.resolve("mps/daemons/gpu-1.pid")).split(" ")[0];
    next.start("gpu-1"); // running already: nothing new
    assertThat(java.nio.file.Files.readString(dir.resolve("mps/daemons/gpu-1.pid")))
        .startsWith(pid + " ");

    next.stop("gpu-1");
    assertThat(next.running()).isEmpty();
    assertThat(ProcessHandle.of(Long.parseLong(pid)).filter(ProcessHandle::isAlive)).isEmpty();
    assertThat(new OsMpsDaemons(paths, OsMpsDaemons.STAND_IN).running()).isEmpty();
  }
}
