package dev.quartermaster.control.workload;

import dev.quartermaster.control.cluster.ControlLoop;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Names a create found held by something this workload does not own, and who wants them: the
 * wanting workload is reported, not retried, until the holder is gone, when it looks again.
 */
final class TakenNames {
  private final ControlLoop loop;

  /** Task names held by a task we do not own → the workload that wants the name. */
  private final Map<String, String> taskWantedBy = new ConcurrentHashMap<>();

  /** Those names → who holds them ({@code kind/name}, or made by hand), for the report. */
  private final Map<String, String> taskHolder = new ConcurrentHashMap<>();

  /** The same for slot volume names (a hand-made volume carries no label naming us). */
  private final Map<String, String> volumeWantedBy = new ConcurrentHashMap<>();

  TakenNames(ControlLoop loop) {
    this.loop = loop;
  }

  void taskTaken(String task, String workload, String holder) {
    taskHolder.put(task, holder);
    taskWantedBy.put(task, workload);
  }

  void volumeTaken(String volume, String workload) {
    volumeWantedBy.put(volume, workload);
  }

  /** Who holds {@code task}, if {@code workload} found it taken and its holder is not gone yet. */
  Optional<String> holderFor(String workload, String task) {
    return workload.equals(taskWantedBy.get(task))
        ? Optional.of(taskHolder.getOrDefault(task, "another task"))
        : Optional.empty();
  }

  /** Task name {@code name} is free: a workload that wanted it looks again. */
  void taskFreed(String name) {
    taskHolder.remove(name);
    Optional.ofNullable(taskWantedBy.remove(name)).ifPresent(loop::enqueue);
  }

  /** The same for a slot volume's name. */
  void volumeFreed(String name) {
    Optional.ofNullable(volumeWantedBy.remove(name)).ifPresent(loop::enqueue);
  }
}
