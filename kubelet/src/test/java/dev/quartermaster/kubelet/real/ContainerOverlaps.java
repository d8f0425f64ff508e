package dev.quartermaster.kubelet.real;

import dev.quartermaster.agent.discovery.DeviceNumber;
import dev.quartermaster.agent.discovery.VerifiedNode;
import dev.quartermaster.agent.host.ProcDeviceHolders;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Judges from the containers themselves: the harness's pods hold {@code /dev/nvidia0} open for as
 * long as they run ({@link Pods#CHECK_AND_HOLD}), and this samples the host's {@code /proc/*}{@code
 * /fd} every {@link #PERIOD_MS} ms; two processes holding it at once is an overlap — one GPU in two
 * pods — whatever the wire said.
 */
final class ContainerOverlaps implements AutoCloseable {
  static final long PERIOD_MS = 100;

  private final Map<String, VerifiedNode> gpu;
  private final List<String> overlaps = new ArrayList<>();
  private final Thread sampler;
  private volatile boolean stopped;

  /** Samples holders of the GPU node, seen in a container as {@code /dev/nvidia0}. */
  ContainerOverlaps(Path hostNode) {
    gpu = Map.of("gpu-0", new VerifiedNode("/dev/nvidia0", hostNode, new DeviceNumber(0, 0)));
    sampler = Thread.ofPlatform().daemon().name("container-overlaps").start(this::sample);
  }

  private void sample() {
    var holders = ProcDeviceHolders.byPath();
    while (!stopped) {
      var scan = holders.scan(gpu);
      var pids = scan.holders().stream().map(h -> h.pid()).distinct().toList();
      if (pids.size() > 1) {
        synchronized (this) {
          overlaps.add(
              Instant.now()
                  + ": /dev/nvidia0 open in "
                  + scan.holders().stream()
                      .map(h -> h.pid() + " (" + h.command() + ")")
                      .distinct()
                      .collect(Collectors.joining(", ")));
        }
      }
      try {
        TimeUnit.MILLISECONDS.sleep(PERIOD_MS);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Every sample that saw two holders. */
  synchronized List<String> overlaps() {
    return List.copyOf(overlaps);
  }

  @Override
  public void close() throws InterruptedException {
    stopped = true;
    sampler.interrupt();
    sampler.join();
  }
}
