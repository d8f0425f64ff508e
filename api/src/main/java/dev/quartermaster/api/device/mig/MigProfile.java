package dev.quartermaster.api.device.mig;

import java.util.List;

/**
 * One MIG GPU-instance profile of a GPU model: how many compute slices (sevenths) it takes, how
 * many memory slices (eighths) it spans, and the memory-slice positions it may start at. The
 * capacity is keyed on (compute, memory, starts); the label is what NVML calls it today, and labels
 * drift between driver versions (mig-parted #31), so nothing decides by label alone except a
 * request that names one.
 *
 * @param label NVML's name, e.g. {@code 3g.71gb}
 * @param computeSlices compute slices it takes (1 to the GPU's 7)
 * @param memorySlices consecutive memory slices it occupies from its start (1 to the GPU's 8)
 * @param starts the memory-slice positions it may start at, ascending
 */
public record MigProfile(String label, int computeSlices, int memorySlices, List<Integer> starts) {
  public MigProfile {
    if (label == null || label.isBlank()) {
      throw new IllegalArgumentException("a MIG profile needs a label");
    }
    if (computeSlices < 1 || memorySlices < 1) {
      throw new IllegalArgumentException(label + ": compute and memory slices must be at least 1");
    }
    starts = List.copyOf(starts);
    if (starts.isEmpty()) {
      throw new IllegalArgumentException(label + ": no start position");
    }
    for (int i = 0; i < starts.size(); i++) {
      if (starts.get(i) < 0 || (i > 0 && starts.get(i) <= starts.get(i - 1))) {
        throw new IllegalArgumentException(label + ": start positions must ascend from 0");
      }
    }
  }

  /** The capacity without the label: {@code 3g4m} is 3 compute and 4 memory slices. */
  public String shape() {
    return computeSlices + "g" + memorySlices + "m";
  }

  /** Whether {@code other} is the same capacity at the same positions, whatever it is called. */
  public boolean sameShape(MigProfile other) {
    return computeSlices == other.computeSlices
        && memorySlices == other.memorySlices
        && starts.equals(other.starts);
  }

  /** Whether it gives at least this much: what a request by attributes asks. */
  public boolean atLeast(int compute, int memory) {
    return computeSlices >= compute && memorySlices >= memory;
  }

  /** "{0,4}:4", as {@code nvidia-smi mig -lgipp} prints placements. */
  public String placementText() {
    var sb = new StringBuilder("{");
    for (int i = 0; i < starts.size(); i++) {
      sb.append(i == 0 ? "" : ",").append(starts.get(i));
    }
    return sb.append("}:").append(memorySlices).toString();
  }
}
