package dev.quartermaster.agent.controlnodes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.discovery.ControlNode;
import dev.quartermaster.agent.discovery.SimulatedDeviceRoot;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.core.env.SystemEnv;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ControlNodeWatcherTest {
  private static final Duration PERIOD = Duration.ofSeconds(30);

  @TempDir Path dir;

  @Test
  void theRescanSeesRemoveAndRestoreWithinOnePeriod() throws Exception {
    var sim = SimulatedDeviceRoot.builder(dir).gpus(1).build();
    var env = new DeterministicEnv(3);
    var seen = new ArrayList<ControlNodeStatus>();

    try (var watcher =
        ControlNodeWatcher.start(
            env,
            new ControlNodeCheck(sim.root()),
            PERIOD,
            ControlNodeWatcher.FileWatch.OFF,
            seen::add)) {
      assertThat(seen).singleElement().isInstanceOf(ControlNodeStatus.Complete.class);

      sim.removeNode(ControlNode.NVIDIA_UVM);
      env.advance(PERIOD);
      assertThat(seen)
          .hasSize(2)
          .last()
          .satisfies(
              s -> {
                assertThat(s.ready()).isFalse();
                assertThat(s.message())
                    .isEqualTo("missing " + sim.nodePath(ControlNode.NVIDIA_UVM));
              });

      env.advance(PERIOD.multipliedBy(3));
      assertThat(seen).as("no news while nothing changes").hasSize(2);

      sim.restoreNode(ControlNode.NVIDIA_UVM);
      env.advance(PERIOD);
      assertThat(seen).hasSize(3).last().isInstanceOf(ControlNodeStatus.Complete.class);
      assertThat(watcher.current().ready()).isTrue();
    }
  }

  @Test
  void theFileWatchSeesRemoveAndRestoreLongBeforeTheRescan() throws Exception {
    var sim = SimulatedDeviceRoot.builder(dir).gpus(1).build();
    var seen = new LinkedBlockingQueue<ControlNodeStatus>();

    // A rescan period of an hour: only the file watch can report within the test's bound.
    try (var watcher =
        ControlNodeWatcher.start(
            new SystemEnv(),
            new ControlNodeCheck(sim.root()),
            Duration.ofHours(1),
            ControlNodeWatcher.FileWatch.ON,
            seen::add)) {
      await(seen, ControlNodeStatus::ready);

      sim.removeNode(ControlNode.NVIDIA_UVM);
      var incomplete = await(seen, s -> !s.ready());
      assertThat(incomplete.message()).contains("nvidia-uvm");

      sim.restoreNode(ControlNode.NVIDIA_UVM);
      await(seen, ControlNodeStatus::ready);
      assertThat(watcher.current().ready()).isTrue();
    }
  }

  static ControlNodeStatus await(
      LinkedBlockingQueue<ControlNodeStatus> seen, Predicate<ControlNodeStatus> wanted)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      var next = seen.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      assertThat(next).as("a matching control-node status within 30 s").isNotNull();
      if (wanted.test(next)) {
        return next;
      }
    }
  }
}
