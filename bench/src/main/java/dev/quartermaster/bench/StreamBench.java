package dev.quartermaster.bench;

import dev.quartermaster.control.allocator.Backfill;
import dev.quartermaster.sim.world.JobStream;
import dev.quartermaster.sim.world.Variant;
import java.nio.file.Path;
import java.util.ArrayList;

/**
 * Issue 44's stream of small jobs: a 1-GPU job every 1 to 2 s (each declaring a deadline of 10 to
 * 40 s, half of them running until it), then a gang of 3 to 5 × 4 GPUs, on 6 nodes × 4 GPUs — with
 * the head-of-line reservation and backfill, and without ({@link Backfill#OFF}, the allocator
 * before it). Run in the deterministic simulation ({@link JobStream}: the real control plane and
 * real agents on simulated hosts, virtual time), so a few minutes of stream take seconds and each
 * seed is the same stream for both: the gang's wait from its arrival (median and longest over the
 * seeds) and the share of GPUs allocated while it waited. Without the reservation a seed's wait is
 * cut at the promise's bound (HOL), where the simulation stops it.
 */
final class StreamBench implements Bench.Benchmark {
  private static final int SEEDS = Integer.getInteger("qm.bench.streamSeeds", 10);

  @Override
  public void run(Path dir, double raw, Report report) throws Exception {
    report.heading(
        "a large gang behind a stream of small jobs: "
            + SEEDS
            + " seeds of the simulation (6 nodes x 4 GPUs, virtual time)");
    dev.quartermaster.sim.world.Campaign.quiet();
    for (var how : Backfill.values()) {
      var waits = new ArrayList<Double>();
      double busy = 0;
      int cut = 0;
      int failed = 0;
      double starvedBusy = 0;
      for (long seed = 1; seed <= SEEDS; seed++) {
        switch (JobStream.run(seed, Variant.backfill(how))) {
          case JobStream.Outcome.Placed p -> {
            waits.add(p.waited().toMillis() / 1e3);
            busy += p.busy();
          }
          case JobStream.Outcome.Starved v -> {
            cut++;
            starvedBusy += v.busy();
          }
          case JobStream.Outcome.Violated v -> failed++;
        }
      }
      waits.sort(null);
      var name = how == Backfill.RESERVE ? "reservation + backfill" : "no reservation (before)";
      report.line(
          name + ": gang's wait, median / longest",
          waits.isEmpty()
              ? "never placed within the bound"
              : String.format(
                  "%.1f s / %.1f s%s",
                  waits.get(waits.size() / 2),
                  waits.getLast(),
                  cut > 0
                      ? " (" + cut + " of " + SEEDS + " seeds not placed within the bound)"
                      : ""));
      report.line(
          "  GPUs allocated while it waited",
          String.format("%.0f %%", (busy + starvedBusy) / Math.max(1, waits.size() + cut) * 100));
      if (failed > 0) {
        report.line("  seeds that broke another promise", failed + " (see ./qm sim --stream)");
      }
    }
  }
}
