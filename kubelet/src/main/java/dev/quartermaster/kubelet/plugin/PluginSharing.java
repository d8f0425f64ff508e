package dev.quartermaster.kubelet.plugin;

import dev.quartermaster.api.node.GpuSharing;
import dev.quartermaster.api.node.MigMode;
import dev.quartermaster.api.validation.Names;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How the plugin's node shares its GPUs, as the operator set it with {@code --share GPU=MODE}: the
 * GPUs in MIG mode (Dynamic: every placement published, an instance made at prepare) and the GPUs
 * shared by MPS or time-slicing, with their clients or replicas. A GPU named nowhere is offered
 * whole. The same wish {@code qm agent} reads from its node's spec ({@code spec.mig}, {@code
 * spec.sharing}); a change takes effect only where nothing held would vanish by it.
 */
public record PluginSharing(Map<String, MigMode> mig, Map<String, GpuSharing> shared) {
  /** Every GPU whole. */
  public static final PluginSharing NONE = new PluginSharing(Map.of(), Map.of());

  /** What a {@code --share} value must look like. */
  public static final String RULE =
      "must be GPU=mig, GPU=mps:CLIENTS or GPU=timeslice:REPLICAS (GPU a device name such as"
          + " gpu-0; CLIENTS and REPLICAS "
          + GpuSharing.MIN_REPLICAS
          + " to "
          + GpuSharing.MAX_REPLICAS
          + "), one mode per GPU";

  public PluginSharing {
    mig = java.util.Collections.unmodifiableMap(new TreeMap<>(mig));
    shared = java.util.Collections.unmodifiableMap(new TreeMap<>(shared));
  }

  /** Thrown for a value that breaks {@link #RULE}; the message names the value. */
  public static final class Invalid extends IllegalArgumentException {
    Invalid(String value, String why) {
      super("--share '" + KubeletPluginConfig.printable(value) + "': " + why);
    }
  }

  /** The wish the {@code --share} values say. */
  public static PluginSharing parse(List<String> values) {
    var mig = new TreeMap<String, MigMode>();
    var shared = new TreeMap<String, GpuSharing>();
    for (var value : values) {
      int eq = value.indexOf('=');
      if (eq <= 0) {
        throw new Invalid(value, RULE);
      }
      var gpu = value.substring(0, eq);
      var mode = value.substring(eq + 1);
      if (!Names.isDnsLabel(gpu)) {
        throw new Invalid(value, "the GPU '" + gpu + "' must be a device name such as gpu-0");
      }
      if (mig.containsKey(gpu) || shared.containsKey(gpu)) {
        throw new Invalid(value, gpu + " is given a mode twice; " + RULE);
      }
      if (mode.equals("mig")) {
        mig.put(gpu, MigMode.Dynamic);
        continue;
      }
      int colon = mode.indexOf(':');
      var kind = colon < 0 ? mode : mode.substring(0, colon);
      int count;
      try {
        count = colon < 0 ? -1 : Integer.parseInt(mode.substring(colon + 1));
      } catch (NumberFormatException e) {
        count = -1;
      }
      if (count < GpuSharing.MIN_REPLICAS || count > GpuSharing.MAX_REPLICAS) {
        throw new Invalid(value, RULE);
      }
      switch (kind) {
        case "mps" -> shared.put(gpu, GpuSharing.mps(count));
        case "timeslice" -> shared.put(gpu, GpuSharing.timeSliced(count));
        default -> throw new Invalid(value, RULE);
      }
    }
    return new PluginSharing(mig, shared);
  }
}
