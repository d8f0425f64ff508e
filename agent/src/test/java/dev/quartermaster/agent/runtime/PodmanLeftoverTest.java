package dev.quartermaster.agent.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.quartermaster.agent.host.FileRunRecords;
import dev.quartermaster.core.env.SystemEnv;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hole 2 with containers: when the agent dies, its {@code podman run} client dies with it but the
 * container goes on under its monitor, on its GPU. Stopping the recorded pid — all a restarted
 * agent did before — leaves the container running (the naive restart, checked first); the run
 * record also names the container, and the next agent's {@link FileRunRecords#stopAll} removes it.
 */
class PodmanLeftoverTest {
  private static final int TIMEOUT_S = 180;

  @TempDir Path dir;
  private Optional<String> container = Optional.empty();

  @BeforeEach
  void setUp() {
    var why = PodmanSupport.unavailable();
    assumeTrue(why.isEmpty(), () -> "podman tests skipped: " + why.orElse(""));
  }

  @AfterEach
  void removeContainer() throws Exception {
    if (container.isPresent()) {
      podman("rm", "--force", "--time", "0", container.get());
    }
  }

  @Test
  void aContainerThatOutlivesItsAgentIsRemovedByTheNextOne() throws Exception {
    var runtime = new PodmanRuntime(new SystemEnv(), PodmanSupport.options());
    var rootfs = PodmanSupport.busyboxRootfs(dir.resolve("rootfs"));
    var task =
        runtime.start(
            new TaskLaunch(
                "leftover",
                List.of("/bin/sleep", "600"),
                Map.of(),
                List.of(),
                List.of(),
                new TaskImage.Rootfs(rootfs),
                dir.resolve("leftover.out")));
    assertThat(task.deviceCheck().get(TIMEOUT_S, TimeUnit.SECONDS))
        .isInstanceOf(DeviceCheck.Passed.class);
    container = task.container();
    var name = container.orElseThrow();
    var records = new FileRunRecords(dir.resolve("runs"), PodmanSupport.options().command());
    records.started("leftover", "uid-1", task);

    // The agent is killed: its podman run client with it.
    var client = task.process().orElseThrow();
    client.destroyForcibly();
    client.onExit().get(TIMEOUT_S, TimeUnit.SECONDS);
    assertThat(running(name))
        .as("the naive restart: the pid is gone, the container is not")
        .isTrue();

    var found = records.stopAll();

    assertThat(found.get("leftover").found()).contains("its container " + name + " was removed");
    assertThat(running(name)).isFalse();
  }

  private static boolean running(String name) throws Exception {
    return podman("ps", "--filter", "name=^" + name + "$", "--format", "{{.Names}}")
        .strip()
        .equals(name);
  }

  private static String podman(String... args) throws Exception {
    var command = new ArrayList<>(PodmanSupport.options().command());
    command.addAll(List.of(args));
    var p = new ProcessBuilder(command).redirectErrorStream(true).start();
    var out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor(TIMEOUT_S, TimeUnit.SECONDS)).isTrue();
    return out;
  }
}
