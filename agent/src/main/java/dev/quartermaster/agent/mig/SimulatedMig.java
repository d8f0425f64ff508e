package dev.quartermaster.agent.mig;

import dev.quartermaster.agent.discovery.VerifiedNode;
import dev.quartermaster.api.device.mig.MigPlacement;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * MIG as a simulated driver does it: the {@link MigTable} rules over state kept by a {@link
 * Storage} that outlives the agent (the simulated device root's files: {@link MigFiles}; the
 * simulated node's memory: {@link MigMemory}), with NVML's refusals: {@code in use} for a mode
 * change while a process holds the GPU and for a destroy while a process holds the instance's
 * capability nodes, {@code insufficient resources} for an overlap.
 */
public final class SimulatedMig implements MigControl {

  /** Where the simulated driver keeps its state and its capability nodes. */
  public interface Storage {
    MigTable load() throws IOException;

    /** Stores {@code next}; makes the capability nodes of new instances, removes gone ones'. */
    void save(MigTable previous, MigTable next) throws IOException;

    /** The parent GPU's own node ({@code /dev/nvidia<gpu>}). */
    VerifiedNode gpuNode(int gpu);

    List<VerifiedNode> capabilityNodes(LiveInstance instance);
  }

  private final Storage storage;
  private final Predicate<List<VerifiedNode>> held;

  /**
   * @param held whether a live process holds any of these nodes open now
   */
  public SimulatedMig(Storage storage, Predicate<List<VerifiedNode>> held) {
    this.storage = Objects.requireNonNull(storage, "storage");
    this.held = Objects.requireNonNull(held, "held");
  }

  private MigTable load() throws MigRefusedException {
    try {
      return storage.load();
    } catch (IOException | UncheckedIOException | IllegalArgumentException e) {
      throw new MigRefusedException(
          MigRefusedException.Refusal.Failed, "cannot read the MIG state: " + e.getMessage());
    }
  }

  private void save(MigTable previous, MigTable next) throws MigRefusedException {
    try {
      storage.save(previous, next);
    } catch (IOException e) {
      throw new MigRefusedException(
          MigRefusedException.Refusal.Failed, "cannot write the MIG state: " + e.getMessage());
    }
  }

  @Override
  public synchronized boolean enabled(int gpu) throws MigRefusedException {
    return load().enabled().contains(gpu);
  }

  @Override
  public synchronized void setEnabled(int gpu, boolean on) throws MigRefusedException {
    var table = load();
    if (table.enabled().contains(gpu) == on) {
      return;
    }
    if (held.test(List.of(storage.gpuNode(gpu)))) {
      throw new MigRefusedException(
          MigRefusedException.Refusal.InUse, "in use: a process has gpu " + gpu + " open");
    }
    save(table, table.withMode(gpu, on));
  }

  @Override
  public synchronized List<LiveInstance> instances(MigGpu gpu) throws MigRefusedException {
    return load().on(gpu.index());
  }

  @Override
  public synchronized LiveInstance create(MigGpu gpu, MigPlacement placement)
      throws MigRefusedException {
    var table = load();
    var instance = table.next(gpu, placement);
    save(table, table.with(instance));
    return instance;
  }

  @Override
  public synchronized void destroy(LiveInstance instance) throws MigRefusedException {
    var table = load();
    if (held.test(storage.capabilityNodes(instance))) {
      throw new MigRefusedException(
          MigRefusedException.Refusal.InUse, "in use: a process has " + instance + " open");
    }
    save(table, table.without(instance));
  }

  @Override
  public List<VerifiedNode> capabilityNodes(LiveInstance instance) {
    return storage.capabilityNodes(instance);
  }
}
