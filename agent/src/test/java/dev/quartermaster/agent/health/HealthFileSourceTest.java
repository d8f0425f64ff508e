package dev.quartermaster.agent.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.discovery.SimulatedDeviceRoot;
import dev.quartermaster.core.env.DeterministicEnv;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HealthFileSourceTest {
  private static final Duration POLL = Duration.ofSeconds(10);
  private static final Duration CLEAN = Duration.ofMinutes(1);

  @TempDir Path dir;
  private final DeterministicEnv env = new DeterministicEnv(11);
  private final HealthTracker tracker =
      new HealthTracker(env, HealthPolicy.defaults(CLEAN), (d, h) -> {});

  @Test
  void aHealthFileMakesTheDeviceUnhealthyUntilItIsCleanForTheCleanPeriod() throws Exception {
    var sim = SimulatedDeviceRoot.builder(dir).gpus(2).regularFiles().build();
    var source = new HealthFileSource(env, sim.root(), sim.gpuNames(), POLL, tracker);
    source.start();
    assertThat(tracker.health("gpu-1")).isEqualTo(new DeviceHealth.Healthy());

    sim.setHealth("gpu-1", "xid 79 GPU has fallen off the bus");
    env.advance(POLL);
    assertThat(tracker.health("gpu-1"))
        .isInstanceOfSatisfying(
            DeviceHealth.Unhealthy.class,
            u -> assertThat(u.reason()).isEqualTo("XID 79: GPU has fallen off the bus"));
    assertThat(tracker.health("gpu-0")).isEqualTo(new DeviceHealth.Healthy());

    // Still faulty a while: stays unhealthy (the file is a level, read on every poll).
    env.advance(CLEAN.multipliedBy(2));
    assertThat(tracker.health("gpu-1")).isInstanceOf(DeviceHealth.Unhealthy.class);

    sim.setHealth("gpu-1", "healthy");
    env.advance(CLEAN.plus(POLL));
    assertThat(tracker.health("gpu-1")).isEqualTo(new DeviceHealth.Healthy());
    source.stop();
  }

  @Test
  void garbageInAHealthFileIsAFaultNamingTheFile() throws Exception {
    var sim = SimulatedDeviceRoot.builder(dir).gpus(1).regularFiles().build();
    new HealthFileSource(env, sim.root(), sim.gpuNames(), POLL, tracker).start();
    sim.setHealth("gpu-0", "on fire");
    env.advance(POLL);
    assertThat(tracker.health("gpu-0"))
        .isInstanceOfSatisfying(
            DeviceHealth.Unhealthy.class,
            u ->
                assertThat(u.reason())
                    .contains(sim.root().resolve("health/gpu-0").toString())
                    .contains("on fire"));
  }

  @Test
  void withoutAHealthDirectoryMonitoringCannotStartAndHealthIsUnknown() throws Exception {
    Files.createDirectories(dir.resolve("dev"));
    var source = new HealthFileSource(env, dir, java.util.List.of("gpu-0"), POLL, tracker);
    source.start();
    assertThat(tracker.health("gpu-0"))
        .isInstanceOfSatisfying(
            DeviceHealth.Unknown.class,
            u ->
                assertThat(u.reason())
                    .contains("cannot start")
                    .contains(dir.resolve("health").toString()));
  }
}
