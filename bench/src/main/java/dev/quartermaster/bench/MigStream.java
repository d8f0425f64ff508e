package dev.quartermaster.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A day of MIG requests, seeded: arrivals whose rate follows the day (lowest at night, highest in
 * the afternoon), each for one H200 profile, weighted toward small ones with some whole GPUs, each
 * held for an exponentially distributed time if placed. Drawn once, replayed to every policy.
 *
 * <p>The offered demand averages {@link #LOAD} times the fleet's compute slices (from 1.0 at night
 * to 1.6 at the peak): more than the fleet holds, so utilization is bounded by how well a policy
 * packs, not by how little is asked.
 */
final class MigStream {
  static final long DAY_S = 24 * 3600;

  /** The first hours fill the empty fleet and are not measured. */
  static final long WARM_UP_S = 2 * 3600;

  static final double LOAD = 1.3;
  static final double MEAN_HOLD_S = 1800;

  /** H200 profile labels and their weights (per cent). */
  static final String[] LABELS = {
    "1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"
  };

  static final int[] WEIGHTS = {35, 15, 20, 15, 5, 10};
  private static final int[] COMPUTE = {1, 1, 2, 3, 4, 7};

  /** One request: at second {@code at}, profile {@code label}, held {@code holdS} if placed. */
  record Request(double at, String label, int compute, double holdS) {}

  static List<Request> draw(long seed, int gpus) {
    var random = new Random(seed);
    double meanCompute = 0;
    for (int i = 0; i < LABELS.length; i++) {
      meanCompute += WEIGHTS[i] / 100.0 * COMPUTE[i];
    }
    double meanRate = LOAD * gpus * 7 / (meanCompute * MEAN_HOLD_S);
    double peakRate = meanRate * 1.25;
    var out = new ArrayList<Request>();
    double t = 0;
    // A Poisson stream at the peak rate, thinned to the hour's rate: the day's shape.
    while (true) {
      t += -Math.log(1 - random.nextDouble()) / peakRate;
      if (t >= WARM_UP_S + DAY_S) {
        return out;
      }
      double rate = meanRate * (1 + 0.25 * Math.sin(2 * Math.PI * (t / DAY_S - 0.25)));
      double keep = random.nextDouble();
      int pick = random.nextInt(100);
      double hold = -Math.log(1 - random.nextDouble()) * MEAN_HOLD_S;
      if (keep >= rate / peakRate) {
        continue;
      }
      int k = 0;
      for (int acc = WEIGHTS[0]; pick >= acc; acc += WEIGHTS[++k]) {}
      out.add(new Request(t, LABELS[k], COMPUTE[k], hold));
    }
  }

  private MigStream() {}
}
