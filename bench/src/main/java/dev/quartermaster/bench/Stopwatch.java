package dev.quartermaster.bench;

/** Wall-clock measurement for benchmarks: the one place bench code reads the monotonic clock. */
final class Stopwatch {
  private final long start = System.nanoTime();

  static Stopwatch start() {
    return new Stopwatch();
  }

  static long nanos() {
    return System.nanoTime();
  }

  double seconds() {
    return (System.nanoTime() - start) / 1e9;
  }
}
