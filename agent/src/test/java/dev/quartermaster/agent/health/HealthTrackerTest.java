package dev.quartermaster.agent.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.device.Device;
import dev.quartermaster.core.env.DeterministicEnv;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HealthTrackerTest {
  private static final Duration CLEAN = Duration.ofMinutes(5);

  private final DeterministicEnv env = new DeterministicEnv(7);
  private final List<String> changes = new ArrayList<>();
  private final HealthTracker tracker =
      new HealthTracker(
          env,
          HealthPolicy.defaults(CLEAN),
          (device, health) -> changes.add(device + "=" + health.getClass().getSimpleName()));

  @Test
  void unknownUntilMonitoringStarts() {
    assertThat(tracker.health("gpu-0"))
        .isInstanceOfSatisfying(
            DeviceHealth.Unknown.class, u -> assertThat(u.reason()).contains("not started"));
    assertThat(tracker.health("gpu-0").allocatable()).isFalse();
    tracker.monitoring(List.of("gpu-0", "gpu-1"));
    assertThat(tracker.snapshot())
        .containsOnly(
            Map.entry("gpu-0", new DeviceHealth.Healthy()),
            Map.entry("gpu-1", new DeviceHealth.Healthy()));
  }

  @Test
  void anXidMakesADeviceUnhealthyAndItRecoversAfterTheCleanPeriod() {
    tracker.monitoring(List.of("gpu-0", "gpu-1"));
    tracker.xid("gpu-0", 79, "GPU has fallen off the bus");

    assertThat(tracker.health("gpu-0"))
        .isInstanceOfSatisfying(
            DeviceHealth.Unhealthy.class,
            u -> {
              assertThat(u.reason()).isEqualTo("XID 79: GPU has fallen off the bus");
              assertThat(u.since()).isEqualTo(DeterministicEnv.DEFAULT_START);
            });
    assertThat(tracker.health("gpu-1")).isEqualTo(new DeviceHealth.Healthy());

    env.advance(CLEAN.minusSeconds(1));
    assertThat(tracker.health("gpu-0")).isInstanceOf(DeviceHealth.Unhealthy.class);
    env.advance(Duration.ofSeconds(1));
    assertThat(tracker.health("gpu-0")).isEqualTo(new DeviceHealth.Healthy());
    assertThat(changes).containsSubsequence("gpu-0=Healthy", "gpu-0=Unhealthy", "gpu-0=Healthy");
  }

  @Test
  void anotherFaultRestartsTheCleanPeriodAndKeepsSince() {
    tracker.monitoring(List.of("gpu-0"));
    tracker.xid("gpu-0", 48, "double bit ECC");
    env.advance(Duration.ofMinutes(4));
    tracker.xid("gpu-0", 63, "row remapping");

    env.advance(Duration.ofMinutes(4));
    assertThat(tracker.health("gpu-0"))
        .isInstanceOfSatisfying(
            DeviceHealth.Unhealthy.class,
            u -> {
              assertThat(u.reason()).startsWith("XID 63");
              assertThat(u.since()).isEqualTo(DeterministicEnv.DEFAULT_START);
            });
    env.advance(Duration.ofMinutes(1));
    assertThat(tracker.health("gpu-0")).isEqualTo(new DeviceHealth.Healthy());
  }

  @Test
  void applicationXidsChangeNothing() {
    tracker.monitoring(List.of("gpu-0"));
    tracker.xid("gpu-0", 13, "graphics engine exception");
    tracker.xid("gpu-0", 43, "");
    assertThat(tracker.health("gpu-0")).isEqualTo(new DeviceHealth.Healthy());
  }

  @Test
  void aFailedMonitorIsUnknownWithTheReasonAndFaultsRecoverToUnknown() {
    tracker.monitoring(List.of("gpu-0", "gpu-1"));
    tracker.monitorFailed("nvmlEventSetWait_v2: GPU is lost (GPU_IS_LOST)");

    assertThat(tracker.snapshot().values())
        .allSatisfy(
            h -> {
              assertThat(h)
                  .isEqualTo(
                      new DeviceHealth.Unknown("nvmlEventSetWait_v2: GPU is lost (GPU_IS_LOST)"));
              assertThat(h.allocatable()).isFalse();
            });
    tracker.fault("gpu-0", "something else saw a fault");
    env.advance(CLEAN);
    assertThat(tracker.health("gpu-0")).isInstanceOf(DeviceHealth.Unknown.class);

    tracker.monitoring(List.of("gpu-0", "gpu-1"));
    assertThat(tracker.health("gpu-0")).isEqualTo(new DeviceHealth.Healthy());
  }

  @Test
  void anUnmonitoredDeviceIsUnknownEvenAfterAFaultClears() {
    tracker.monitoring(List.of("gpu-0"));
    tracker.unmonitored("gpu-0", "XID events not supported on gpu-0");
    tracker.xid("gpu-0", 79, "");
    env.advance(CLEAN);
    assertThat(tracker.health("gpu-0"))
        .isEqualTo(new DeviceHealth.Unknown("XID events not supported on gpu-0"));
  }

  @Test
  void healthIsPublishedWithItsReason() {
    var device = new Device("gpu-0", "gpu", Map.of("uuid", "GPU-1"), Device.Health.Unknown, "");
    tracker.monitoring(List.of("gpu-0"));
    tracker.xid("gpu-0", 79, "fell off the bus");

    var published = tracker.health("gpu-0").applyTo(device);

    assertThat(published.health()).isEqualTo(Device.Health.Unhealthy);
    assertThat(published.healthReason())
        .contains("XID 79: fell off the bus")
        .contains("since 2026-01-01T00:00:00Z");
    assertThat(new DeviceHealth.Unknown("why").applyTo(device).healthReason()).isEqualTo("why");
  }
}
