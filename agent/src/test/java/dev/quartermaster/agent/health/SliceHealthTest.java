package dev.quartermaster.agent.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.core.env.DeterministicEnv;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A MIG slice's health: an XID on the parent's handle that names no instance makes every slice of
 * it unhealthy, one that names a GPU instance only the slice it serves; each reason says which XID
 * and why (what {@code describe node} shows).
 */
class SliceHealthTest {
  private static final Duration CLEAN = Duration.ofMinutes(5);
  private static final String GPU = "gpu-0";
  private static final List<String> SLICES =
      List.of("gpu-0-mig-3g.71gb-0", "gpu-0-mig-3g.71gb-4", "gpu-0-mig-1g.18gb-6");

  private final DeterministicEnv env = new DeterministicEnv(7);
  private final HealthTracker tracker =
      new HealthTracker(env, HealthPolicy.defaults(CLEAN), (device, health) -> {});

  private DeviceHealth slice(String name) {
    return tracker.health(GPU).ofSlice(GPU, tracker.reported(name));
  }

  @Test
  void anXidOnTheParentMarksEverySlice() {
    tracker.monitoring(List.of(GPU));
    tracker.xid(GPU, 79, "GPU has fallen off the bus");
    for (var s : SLICES) {
      assertThat(slice(s))
          .isInstanceOfSatisfying(
              DeviceHealth.Unhealthy.class,
              u ->
                  assertThat(u.reason())
                      .startsWith("XID 79: GPU has fallen off the bus")
                      .contains("naming no GPU instance, so every slice of gpu-0 is affected"));
    }
  }

  @Test
  void anXidNamingAnInstanceMarksOnlyItsSliceUntilTheCleanPeriodEnds() {
    tracker.monitoring(List.of(GPU));
    tracker.instanceXid(GPU, 3, "gpu-0-mig-3g.71gb-4", 94, "contained ECC error");

    assertThat(slice("gpu-0-mig-3g.71gb-4"))
        .isInstanceOfSatisfying(
            DeviceHealth.Unhealthy.class,
            u ->
                assertThat(u.reason())
                    .isEqualTo(
                        "XID 94: contained ECC error; it named GPU instance 3 of gpu-0, so only"
                            + " this slice is affected"));
    assertThat(slice("gpu-0-mig-3g.71gb-0")).isEqualTo(new DeviceHealth.Healthy());
    assertThat(slice("gpu-0-mig-1g.18gb-6")).isEqualTo(new DeviceHealth.Healthy());
    assertThat(tracker.health(GPU)).isEqualTo(new DeviceHealth.Healthy());

    env.advance(CLEAN);
    assertThat(slice("gpu-0-mig-3g.71gb-4")).isEqualTo(new DeviceHealth.Healthy());
  }

  @Test
  void anApplicationXidNamingAnInstanceChangesNothing() {
    tracker.monitoring(List.of(GPU));
    tracker.instanceXid(GPU, 3, "gpu-0-mig-3g.71gb-4", 43, "kernel killed");
    assertThat(tracker.reported("gpu-0-mig-3g.71gb-4")).isEmpty();
  }

  @Test
  void monitoringDownLeavesEverySliceUnknown() {
    tracker.monitoring(List.of(GPU));
    tracker.instanceXid(GPU, 3, "gpu-0-mig-3g.71gb-4", 94, "contained ECC error");
    tracker.monitorFailed("XID monitoring stopped");
    assertThat(slice("gpu-0-mig-3g.71gb-0"))
        .isEqualTo(new DeviceHealth.Unknown("XID monitoring stopped"));
  }
}
