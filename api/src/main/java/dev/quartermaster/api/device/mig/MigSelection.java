package dev.quartermaster.api.device.mig;

import dev.quartermaster.api.device.DeviceSelector;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Which slices a list of device selectors could ever select: what validation refuses a class or
 * request of slices by, so that a selector no slice can meet ({@code computeSlices Gte 8}, {@code
 * profile In [5g.99gb]}) is a 4xx when written, not a claim that waits for ever.
 *
 * <p>Only attributes that every slice of a model carries alike are judged ({@code model}, {@code
 * profile}, {@code computeSlices}, {@code memorySlices}, {@code memory}, {@code start}); a selector
 * on any other ({@code parent}, a label an agent adds) could match on some node and passes.
 */
public final class MigSelection {
  private MigSelection() {}

  private static final Set<String> CAPACITY =
      Set.of(
          MigGeometry.MODEL,
          MigGeometry.PROFILE,
          MigGeometry.COMPUTE_SLICES,
          MigGeometry.MEMORY_SLICES,
          MigGeometry.MEMORY,
          MigGeometry.START);

  /** Attributes only slices carry: selectors on them ask for slices, whatever the class. */
  private static final Set<String> SLICE_ONLY =
      Set.of(
          MigGeometry.PROFILE,
          MigGeometry.COMPUTE_SLICES,
          MigGeometry.MEMORY_SLICES,
          MigGeometry.START);

  /** Whether some selector is on an attribute only MIG slices carry. */
  public static boolean selectsSlices(List<DeviceSelector> selectors) {
    return selectors.stream().anyMatch(s -> SLICE_ONLY.contains(s.attribute()));
  }

  /** Whether some slice of a known GPU model meets every selector on its capacity attributes. */
  public static boolean canMatch(List<DeviceSelector> selectors) {
    var judged = selectors.stream().filter(s -> CAPACITY.contains(s.attribute())).toList();
    return MigGeometry.KNOWN.stream()
        .flatMap(g -> g.devices("gpu-0").stream())
        .anyMatch(d -> judged.stream().allMatch(s -> s.matches(d.attributes())));
  }

  /** The rule a selector list that {@link #canMatch} refuses breaks, in a user's words. */
  public static String rule() {
    return "no MIG slice of a known GPU ("
        + MigGeometry.KNOWN.stream().map(MigGeometry::model).collect(Collectors.joining(", "))
        + ") meets them all: a class or request that can never match a slice; profiles are "
        + MigGeometry.KNOWN.stream()
            .flatMap(g -> g.profiles().stream())
            .map(MigProfile::label)
            .distinct()
            .collect(Collectors.joining(", "))
        + ", computeSlices 1 to 7, memorySlices 1 to 8";
  }
}
