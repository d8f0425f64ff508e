package dev.quartermaster.kubelet.real;

import dev.quartermaster.agent.discovery.DeviceNumber;
import dev.quartermaster.agent.discovery.VerifiedNode;
import dev.quartermaster.agent.host.ProcDeviceHolders;
import java.nio.file.Files;
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
 * /fd} every {@link #PERIOD_MS} ms; processes of two containers (two pid namespaces) holding it at
 * once is an overlap — one GPU in two pods — whatever the wire said.
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
      // One container may show two holders for a moment: its shell between a fork and the
      // child's exec (which closes fd 3). Containers, not processes, are counted: each pod has a
      // pid namespace of its own.
      var containers = scan.holders().stream().map(h -> pidNamespace(h.pid())).distinct().toList();
      if (containers.size() > 1) {
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

  /** The pid namespace of {@code pid} ({@code pid:[4026532…]}), or the pid if it is gone. */
  private static String pidNamespace(long pid) {
    try {
      return Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "ns", "pid")).toString();
    } catch (java.io.IOException e) {
      return "pid " + pid;
    }
  }

  /** Every sample that saw two containers holding the GPU. */
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
