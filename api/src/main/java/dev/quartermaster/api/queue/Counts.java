package dev.quartermaster.api.queue;

/**
 * Device counts summed and multiplied without wrapping: each field of a spec is an {@code int}
 * within its own limit, but their products and sums are not (groups × replicas × claim templates ×
 * requests × count passed 2³² and admitted a workload of four billion GPUs into a quota of 4). A
 * result past the range of a {@code long} saturates at its bound, so it only ever reads as too big,
 * never as small or negative.
 */
public final class Counts {
  private Counts() {}

  /** {@code a + b}, saturated at {@code Long.MIN_VALUE} and {@code Long.MAX_VALUE}. */
  public static long sum(long a, long b) {
    long r = a + b;
    // Overflow iff both operands have the sign the result lacks.
    if (((a ^ r) & (b ^ r)) < 0) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return r;
  }

  /** {@code a × b}, saturated at {@code Long.MIN_VALUE} and {@code Long.MAX_VALUE}. */
  public static long product(long a, long b) {
    long high = Math.multiplyHigh(a, b);
    long low = a * b;
    if ((high == 0 && low >= 0) || (high == -1 && low < 0)) {
      return low;
    }
    return (a < 0) == (b < 0) ? Long.MAX_VALUE : Long.MIN_VALUE;
  }

  /** {@code n} as an {@code int}, saturated at {@code Integer.MIN_VALUE} and {@code MAX_VALUE}. */
  public static int toInt(long n) {
    return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, n));
  }
}
