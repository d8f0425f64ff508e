package dev.quartermaster.agent.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.quartermaster.agent.discovery.DiscoveredGpu;
import dev.quartermaster.agent.discovery.DiscoveryResult;
import dev.quartermaster.agent.discovery.SimulatedDeviceRoot;
import dev.quartermaster.agent.health.DeviceHealth;
import dev.quartermaster.agent.health.HealthPolicy;
import dev.quartermaster.agent.health.HealthTracker;
import dev.quartermaster.agent.health.InstanceSlices;
import dev.quartermaster.core.env.SystemEnv;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Our FFM bindings against a C test double with nvml.h's signatures (built with gcc; skipped
 * without it): struct layouts, out-parameters, strings, error codes and the event wait.
 */
class NvmlStubTest {
  private static final String UUID0 = "GPU-5705b000-0000-4000-8000-000000000000";
  private static final String UUID1 = "GPU-5705b000-0000-4000-8000-000000000001";

  @TempDir Path dir;
  private NvmlStub stub;

  @BeforeEach
  void buildStub() throws Exception {
    var built = NvmlStub.build(dir);
    assumeTrue(built.isPresent(), "gcc is not installed: cannot build the NVML test double");
    stub = built.get();
  }

  @AfterEach
  void closeStub() throws Exception {
    if (stub != null) {
      stub.close();
    }
  }

  @Test
  void discoveryReadsEveryFieldAndIsolatesALostGpu() throws Throwable {
    var sim = SimulatedDeviceRoot.builder(dir.resolve("root")).gpus(2).regularFiles().build();

    var result = new NvmlDiscovery(() -> NvmlLibrary.load(stub.path()), sim.root()).discover();

    var found = (DiscoveryResult.Found) result;
    assertThat(found.source()).isEqualTo("nvml");
    assertThat(found.gpus()).extracting(DiscoveredGpu::name).containsExactly("gpu-0", "gpu-1");
    var gpu1 = found.gpus().get(1);
    assertThat(gpu1.uuid()).isEqualTo(UUID1);
    assertThat(gpu1.model()).isEqualTo("NVIDIA Stub H100");
    assertThat(gpu1.memoryBytes()).hasValue(85_520_809_985L);
    assertThat(gpu1.minor()).isEqualTo(1);
    assertThat(gpu1.pciBusId()).isEqualTo("00000000:19:00.0");
    assertThat(found.problems())
        .containsExactly("gpu-2: nvmlDeviceGetUUID: GPU is lost (GPU_IS_LOST)");
    assertThat(stub.inits()).as("every nvmlInit_v2 matched by nvmlShutdown").isZero();
  }

  @Test
  void xidEventsMarkTheRightDeviceAndAWaitErrorFailsClosed() throws Throwable {
    var changes = new LinkedBlockingQueue<Map.Entry<String, DeviceHealth>>();
    var tracker =
        new HealthTracker(
            new SystemEnv(),
            HealthPolicy.defaults(Duration.ofHours(1)),
            (device, health) -> changes.add(Map.entry(device, health)));
    var names = Map.of(UUID0, "gpu-0", UUID1, "gpu-1", "GPU-not-listed", "gpu-9");

    try (var monitor =
        NvmlXidMonitor.start(
            new SystemEnv(),
            () -> NvmlLibrary.load(stub.path()),
            names,
            Duration.ofMillis(200),
            tracker)) {
      assertThat(tracker.health("gpu-0")).isEqualTo(new DeviceHealth.Healthy());
      assertThat(tracker.health("gpu-9"))
          .isEqualTo(new DeviceHealth.Unknown("NVML does not list gpu-9"));

      stub.pushXid(1, 13); // an application XID: ignored
      stub.pushXid(1, 79);
      await(
          changes,
          e -> e.getKey().equals("gpu-1") && e.getValue() instanceof DeviceHealth.Unhealthy);
      assertThat(tracker.health("gpu-1"))
          .isInstanceOfSatisfying(
              DeviceHealth.Unhealthy.class, u -> assertThat(u.reason()).startsWith("XID 79"));
      assertThat(tracker.health("gpu-0")).isEqualTo(new DeviceHealth.Healthy());

      stub.failWait(999);
      await(
          changes, e -> e.getKey().equals("gpu-0") && e.getValue() instanceof DeviceHealth.Unknown);
      assertThat(tracker.health("gpu-0"))
          .isInstanceOfSatisfying(
              DeviceHealth.Unknown.class,
              u ->
                  assertThat(u.reason())
                      .contains("XID monitoring stopped")
                      .contains("nvmlEventSetWait_v2"));
      assertThat(monitor.stopped()).isTrue();
    }
  }

  @Test
  void anXidNamingAGpuInstanceMarksOnlyItsSliceAndOneNamingNoneMarksTheGpu() throws Throwable {
    var changes = new LinkedBlockingQueue<Map.Entry<String, DeviceHealth>>();
    var tracker =
        new HealthTracker(
            new SystemEnv(),
            HealthPolicy.defaults(Duration.ofHours(1)),
            (device, health) -> changes.add(Map.entry(device, health)));
    InstanceSlices slices =
        (gpu, gi) ->
            gpu.equals("gpu-0") && gi == 3 ? Optional.of("gpu-0-mig-3g.71gb-4") : Optional.empty();
    try (var monitor =
        NvmlXidMonitor.start(
            new SystemEnv(),
            () -> NvmlLibrary.load(stub.path()),
            Map.of(UUID0, "gpu-0", UUID1, "gpu-1"),
            Duration.ofMillis(200),
            tracker,
            slices)) {
      stub.pushInstanceXid(0, 94, 3);
      await(changes, e -> e.getKey().equals("gpu-0-mig-3g.71gb-4"));
      assertThat(tracker.reported("gpu-0-mig-3g.71gb-4"))
          .get()
          .isInstanceOfSatisfying(
              DeviceHealth.Unhealthy.class,
              u ->
                  assertThat(u.reason())
                      .startsWith("XID 94")
                      .contains("GPU instance 3 of gpu-0")
                      .contains("only this slice"));
      assertThat(tracker.health("gpu-0")).isEqualTo(new DeviceHealth.Healthy());

      // An instance no slice holds now (destroyed meanwhile): the whole GPU, fail closed.
      stub.pushInstanceXid(1, 94, 5);
      await(changes, e -> e.getKey().equals("gpu-1"));
      assertThat(tracker.health("gpu-1"))
          .isInstanceOfSatisfying(
              DeviceHealth.Unhealthy.class,
              u -> assertThat(u.reason()).contains("GPU instance 5, which no slice of gpu-1"));
      assertThat(monitor.stopped()).isFalse();
    }
  }

  @Test
  void noLibraryMeansMonitoringCannotStart() {
    var tracker =
        new HealthTracker(
            new SystemEnv(), HealthPolicy.defaults(Duration.ofHours(1)), (d, h) -> {});
    NvmlXidMonitor.start(
        new SystemEnv(),
        () -> NvmlLibrary.load("libnvidia-ml-absent-for-test.so.1"),
        Map.of(UUID0, "gpu-0"),
        Duration.ofMillis(200),
        tracker);
    assertThat(tracker.health("gpu-0"))
        .isInstanceOfSatisfying(
            DeviceHealth.Unknown.class,
            u ->
                assertThat(u.reason())
                    .contains("XID monitoring cannot start")
                    .contains("libnvidia-ml-absent-for-test.so.1"));
  }

  /** Waits, bounded, for a change matching {@code wanted}. */
  private static void await(
      LinkedBlockingQueue<Map.Entry<String, DeviceHealth>> changes,
      Predicate<Map.Entry<String, DeviceHealth>> wanted)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      var next = changes.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      assertThat(next).as("a matching health change within 30 s").isNotNull();
      if (wanted.test(next)) {
        return;
      }
    }
  }
}
