package dev.quartermaster.api.format;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * How long ago something happened, as kubectl shows it: short, with more precision while the age is
 * small ({@code 45s}, {@code 3m20s}, {@code 25m}, {@code 2h5m}, {@code 20h}, {@code 3d4h}, {@code
 * 40d}, {@code 3y}).
 */
public final class Age {
  private static final long MINUTE = 60;
  private static final long HOUR = 60 * MINUTE;
  private static final long DAY = 24 * HOUR;
  private static final long YEAR = 365 * DAY;

  private Age() {}

  /**
   * The age at {@code now} of something that happened {@code at}; {@code <unknown>} when there is
   * no time.
   */
  public static String since(Optional<Instant> at, Instant now) {
    return at.map(t -> of(Duration.between(t, now))).orElse("<unknown>");
  }

  public static String of(Duration age) {
    long s = age.getSeconds();
    if (s < -1) {
      return "<invalid>"; // the clocks disagree by more than rounding can explain
    }
    if (s < 2 * MINUTE) {
      return Math.max(0, s) + "s";
    }
    if (s < 10 * MINUTE) {
      return pair(s / MINUTE, "m", s % MINUTE, "s");
    }
    if (s < 3 * HOUR) {
      return s / MINUTE + "m";
    }
    if (s < 8 * HOUR) {
      return pair(s / HOUR, "h", (s % HOUR) / MINUTE, "m");
    }
    if (s < 2 * DAY) {
      return s / HOUR + "h";
    }
    if (s < 8 * DAY) {
      return pair(s / DAY, "d", (s % DAY) / HOUR, "h");
    }
    if (s < 2 * YEAR) {
      return s / DAY + "d";
    }
    if (s < 8 * YEAR) {
      return pair(s / YEAR, "y", (s % YEAR) / DAY, "d");
    }
    return s / YEAR + "y";
  }

  // The smaller unit is left out when it is zero: "3m", not "3m0s".
  private static String pair(long big, String bigUnit, long small, String smallUnit) {
    return small == 0 ? big + bigUnit : big + bigUnit + small + smallUnit;
  }
}
