package dev.quartermaster.api.format;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Byte counts in binary units, as capacities are written: {@code 10Gi}, {@code 512Mi}, {@code
 * 1.5Ti}.
 */
public final class Bytes {
  private static final String[] UNITS = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};

  private Bytes() {}

  public static String human(long bytes) {
    if (bytes < 1024) {
      return Long.toString(bytes);
    }
    int unit = -1;
    long scale = 1;
    while (unit + 1 < UNITS.length && bytes / scale >= 1024) {
      scale *= 1024;
      unit++;
    }
    if (bytes % scale == 0) {
      return bytes / scale + UNITS[unit];
    }
    // Not a whole number of units: one decimal is enough to read a size at a glance.
    var value =
        BigDecimal.valueOf(bytes).divide(BigDecimal.valueOf(scale), 1, RoundingMode.HALF_UP);
    return value.stripTrailingZeros().toPlainString() + UNITS[unit];
  }
}
