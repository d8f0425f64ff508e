package dev.quartermaster.api.device.mig;

import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceClassSpec;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToIntFunction;

/**
 * What one device of a MIG class costs a queue whose quota counts MIG compute slices ({@link
 * #QUOTA}): the most compute slices of any slice the class may be given, on any known model. A
 * class by profile ({@code mig-3g.71gb}) costs exactly its profile's; one by attributes costs the
 * largest slice it admits ({@code computeSlices Gte 2}: 7), because which slice it gets is the
 * allocator's choice, made after admission — so no queue ever holds more compute than its quota,
 * whatever the allocator picks. A class of no slice costs nothing.
 */
public final class MigCharge {
  /** The quota key of MIG compute slices (sevenths of a GPU), any profile. */
  public static final String QUOTA = "mig-compute-slices";

  /** Every slice of every known model: what a class's selectors are matched against. */
  private static final List<Device> SLICES =
      MigGeometry.KNOWN.stream().flatMap(g -> g.devices("gpu").stream()).toList();

  private MigCharge() {}

  /** The compute slices one device of {@code spec} costs; 0 if it selects no MIG slice. */
  public static int computeSlices(DeviceClassSpec spec) {
    if (!MigGeometry.DEVICE_CLASS.equals(spec.deviceClass())) {
      return 0;
    }
    int most = 0;
    for (var d : SLICES) {
      var attributes = d.attributes();
      if (spec.selectors().stream().allMatch(s -> s.matches(attributes))) {
        most = Math.max(most, Integer.parseInt(attributes.get(MigGeometry.COMPUTE_SLICES)));
      }
    }
    return most;
  }

  /** Per device class name among {@code classes}, what one device costs (0 for any other name). */
  public static ToIntFunction<String> of(Collection<DeviceClass> classes) {
    var costs = perClass(classes);
    return name -> costs.getOrDefault(name, 0);
  }

  /** The classes among {@code classes} whose devices cost compute slices, by name, and what. */
  public static Map<String, Integer> perClass(Collection<DeviceClass> classes) {
    var costs = new TreeMap<String, Integer>();
    for (var c : classes) {
      int n = computeSlices(c.spec());
      if (n > 0) {
        costs.put(c.metadata().name(), n);
      }
    }
    return costs;
  }
}
