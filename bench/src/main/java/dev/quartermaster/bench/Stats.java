package dev.quartermaster.bench;

import java.util.List;

/** Median and range of a few rounds' figures. */
final class Stats {
  private Stats() {}

  static double median(List<Double> xs) {
    var sorted = xs.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  /** The {@code q}-quantile (0..1) of {@code xs}, nearest rank; 0 for none. */
  static double quantile(List<Double> xs, double q) {
    if (xs.isEmpty()) {
      return 0;
    }
    var sorted = xs.stream().sorted().toList();
    int rank = (int) Math.ceil(q * sorted.size());
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
  }

  static double min(List<Double> xs) {
    return xs.stream().mapToDouble(Double::doubleValue).min().orElse(0);
  }

  static double max(List<Double> xs) {
    return xs.stream().mapToDouble(Double::doubleValue).max().orElse(0);
  }
}
