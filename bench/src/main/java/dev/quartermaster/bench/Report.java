package dev.quartermaster.bench;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.Locale;

/** Prints figures in one aligned format, each with its ratio to the raw commit rate. */
final class Report {
  /** A report that prints nothing: for set-up steps repeated between rounds. */
  static final Report QUIET = new Report(new PrintStream(java.io.OutputStream.nullOutputStream()));

  private final PrintStream out;

  Report(PrintStream out) {
    this.out = out;
  }

  void heading(String text) {
    out.println();
    out.println("== " + text);
  }

  void figure(String what, double value, String unit, double rawCommitsPerSecond) {
    out.printf(
        Locale.ROOT,
        "%-72s %12.0f %-10s (%.2fx raw commit rate)%n",
        what,
        value,
        unit,
        value / rawCommitsPerSecond);
  }

  void line(String what, String value) {
    out.printf(Locale.ROOT, "%-72s %s%n", what, value);
  }

  /**
   * How far {@code value} is from issue 13's target for it: "target 5000 claims/s: reached 0.42x".
   */
  void target(String what, double value, double target) {
    line(
        "  target for " + what + ": " + String.format(Locale.ROOT, "%.0f", target),
        String.format(Locale.ROOT, "reached %.2fx", value / target));
  }

  /** A line as it is (a table row). */
  void text(String line) {
    out.println(line);
  }

  /** p50/p99/max of nanosecond samples, in milliseconds. */
  void latencies(String what, long[] nanos) {
    var sorted = nanos.clone();
    Arrays.sort(sorted);
    out.printf(
        Locale.ROOT,
        "%-72s p50 %.2f ms  p99 %.2f ms  max %.2f ms  (n=%d)%n",
        what,
        ms(sorted, 0.50),
        ms(sorted, 0.99),
        sorted[sorted.length - 1] / 1e6,
        sorted.length);
  }

  private static double ms(long[] sorted, double q) {
    return sorted[Math.min(sorted.length - 1, (int) Math.floor(q * sorted.length))] / 1e6;
  }
}
