package dev.quartermaster.api.device.mig;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Which {@link MigGeometry} a GPU has, from the product name NVML reports ({@code
 * nvmlDeviceGetName}, or the driver's {@code information} file: {@code NVIDIA H100 80GB HBM3},
 * {@code NVIDIA H200}, {@code NVIDIA B200}). Matched on the family and its memory, never on a
 * profile label (those drift between drivers); a product not listed here (H100 NVL's 94 GB, say)
 * has no known geometry, and the agent publishes nothing for it in MIG mode, saying why.
 */
public final class MigModels {
  private MigModels() {}

  private record Family(List<String> words, MigGeometry geometry) {
    boolean matches(String name) {
      return words.stream().allMatch(name::contains);
    }
  }

  // Most specific first: "H100 NVL" must not be taken for an 80 GB H100.
  private static final List<Family> FAMILIES =
      List.of(
          new Family(List.of("H200"), MigGeometry.H200_141GB),
          new Family(List.of("GH200"), MigGeometry.H200_141GB),
          new Family(List.of("B200"), MigGeometry.B200_180GB),
          new Family(List.of("H100", "80GB"), MigGeometry.H100_80GB),
          new Family(List.of("H100", "SXM"), MigGeometry.H100_80GB),
          new Family(List.of("H100", "PCIE"), MigGeometry.H100_80GB));

  /** The product name the simulated H200 reports, as {@code nvidia-smi -L} shows it. */
  public static final String H200_NAME = "NVIDIA H200";

  /** The geometry of the product NVML calls {@code productName}, if known here. */
  public static Optional<MigGeometry> forProduct(String productName) {
    var name = productName.toUpperCase(Locale.ROOT);
    if (name.contains("NVL") && name.contains("H100")) {
      return Optional.empty(); // 94 GB: a geometry of its own, not modelled yet
    }
    return FAMILIES.stream().filter(f -> f.matches(name)).map(Family::geometry).findFirst();
  }
}
