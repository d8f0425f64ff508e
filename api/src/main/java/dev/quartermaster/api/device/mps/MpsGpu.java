package dev.quartermaster.api.device.mps;

import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.node.GpuSharing;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.SharingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One GPU of a node wished or published MPS-shared, with its shares and who holds each: the one
 * reading {@code qm describe node}, {@code qm get nodes} and the metrics show, built from the
 * node's spec, its slice and who holds which device.
 *
 * @param gpu the GPU's device name
 * @param wish the operator's wish ({@code spec.sharing}); empty: to be used whole again
 * @param offered what its published MPS device offers; empty while the GPU is offered otherwise
 * @param shares each share held, by name, with its holder ({@code claim/a})
 */
public record MpsGpu(
    String gpu,
    Optional<GpuSharing> wish,
    Optional<MpsCapacity> offered,
    Map<MpsShare, String> shares) {
  public MpsGpu {
    var sorted = new TreeMap<MpsShare, String>(java.util.Comparator.comparing(MpsShare::name));
    sorted.putAll(shares);
    shares = java.util.Collections.unmodifiableMap(sorted);
  }

  /**
   * The node's MPS GPUs, by name: those wished MPS, published MPS, or with shares held.
   *
   * @param held device name → its holder as an operator reads it
   */
  public static List<MpsGpu> of(NodeSpec spec, DeviceSliceSpec slice, Map<String, String> held) {
    var offered = new TreeMap<String, MpsCapacity>();
    for (var d : slice.devices()) {
      if (MpsShares.isTemplate(d)) {
        offered.put(MpsShares.gpuOfTemplate(d.name()).orElseThrow(), MpsShares.capacity(d));
      }
    }
    var shares = new TreeMap<String, Map<MpsShare, String>>();
    held.forEach(
        (d, h) ->
            MpsShares.parse(d)
                .ifPresent(
                    s ->
                        shares
                            .computeIfAbsent(
                                s.gpu(),
                                k -> new TreeMap<>(java.util.Comparator.comparing(MpsShare::name)))
                            .put(s, h)));
    var names = new TreeSet<String>(offered.keySet());
    names.addAll(shares.keySet());
    spec.sharing()
        .forEach(
            (g, w) -> {
              if (w.mode() == SharingMode.Mps) {
                names.add(g);
              }
            });
    var out = new ArrayList<MpsGpu>();
    for (var gpu : names) {
      out.add(
          new MpsGpu(
              gpu,
              Optional.ofNullable(spec.sharing().get(gpu)),
              Optional.ofNullable(offered.get(gpu)),
              shares.getOrDefault(gpu, Map.of())));
    }
    return List.copyOf(out);
  }

  public int computeHeld() {
    return shares.keySet().stream().mapToInt(MpsShare::computePercent).sum();
  }

  public long memoryGiBHeld() {
    return shares.keySet().stream().mapToLong(MpsShare::memoryGiB).sum();
  }

  /** What a new share could still get, e.g. {@code 40%/52Gi}; {@code -} while not offered. */
  public String freeText() {
    if (offered.isEmpty()) {
      return "-";
    }
    var cap = offered.get();
    if (shares.size() >= cap.clients()) {
      return "0%/0Gi";
    }
    return Math.max(0, cap.computePercent() - computeHeld())
        + "%/"
        + Math.max(0, cap.memoryGiB() - memoryGiBHeld())
        + "Gi";
  }

  /** Each MPS GPU's {@link #freeText}, joined by commas; empty for none. */
  public static String freeText(List<MpsGpu> gpus) {
    return String.join(",", gpus.stream().map(MpsGpu::freeText).toList());
  }

  /** The mode wished, and what the slice shows when it differs. */
  public String modeText() {
    var wished =
        wish.map(
                w ->
                    w.mode() == SharingMode.Mps
                        ? "MPS, up to " + w.replicas() + " clients"
                        : "time-sliced by " + w.replicas())
            .orElse("whole wished");
    if (offered.isEmpty()) {
      return wished + "; not MPS now (its agent shares the GPU once nothing holds it)";
    }
    boolean mpsWished = wish.filter(w -> w.mode() == SharingMode.Mps).isPresent();
    if (!mpsWished) {
      return wished + "; MPS now (until its shares are released)";
    }
    return wished;
  }

  /**
   * What is taken of what the GPU offers: {@code compute 60/100 %, memory 28/80 GiB, clients 2/48}.
   */
  public String usedText() {
    var cap = offered.orElse(MpsCapacity.UNKNOWN);
    return "compute "
        + computeHeld()
        + "/"
        + cap.computePercent()
        + " %, memory "
        + memoryGiBHeld()
        + "/"
        + (cap.memoryGiB() == Integer.MAX_VALUE ? "?" : Integer.toString(cap.memoryGiB()))
        + " GiB, clients "
        + shares.size()
        + "/"
        + cap.clients();
  }

  /**
   * A bar of the GPU's compute, one cell per 5 %: each share's cells marked with its number in
   * {@link #shares}' order ({@code [1111112222········]}), free ones {@code ·}.
   */
  public String render() {
    var b = new StringBuilder("[");
    int k = 1;
    for (var s : shares.keySet()) {
      char mark = (char) (k <= 9 ? '0' + k : 'a' + (k - 10) % 26);
      b.append(String.valueOf(mark).repeat(s.computePercent() / MpsShares.COMPUTE_STEP));
      k++;
    }
    int used = computeHeld() / MpsShares.COMPUTE_STEP;
    b.append("·".repeat(Math.max(0, 100 / MpsShares.COMPUTE_STEP - used)));
    return b.append(']').toString();
  }
}
