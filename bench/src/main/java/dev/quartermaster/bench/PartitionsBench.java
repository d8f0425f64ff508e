package dev.quartermaster.bench;

import dev.quartermaster.bench.partitions.Harness;
import dev.quartermaster.store.etcd.EtcdProcesses;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Issue 49's harness as a bench group: real etcd members, servers and agents in network namespaces
 * of their own, fault schedules drawn from seeds ({@code -Dqm.bench.partitionSeed}, default 1;
 * {@code -Dqm.bench.partitionSchedules}, default 10), and a table of what each schedule did and
 * what the checks found.
 */
final class PartitionsBench implements Bench.Benchmark {
  @Override
  public void run(Path dir, double raw, Report report) throws Exception {
    report.heading("partitions: real processes in network namespaces, faults from seeds");
    var missing = Harness.unavailable();
    var etcd = EtcdProcesses.binary();
    var qm = Path.of("qm").toAbsolutePath();
    if (missing.isPresent() || etcd.isEmpty() || !Files.isExecutable(qm)) {
      report.line(
          "skipped",
          missing.orElse(
              etcd.isEmpty()
                  ? EtcdProcesses.HOW_TO_INSTALL
                  : "run from the repository root (./qm)"));
      return;
    }
    long seed = Long.getLong("qm.bench.partitionSeed", 1);
    int schedules = Integer.getInteger("qm.bench.partitionSchedules", 10);
    var variant = java.util.Optional.ofNullable(System.getProperty("qm.bench.partitionVariant"));
    variant.ifPresent(v -> report.line("naive variant", v));
    var results =
        Harness.run(
            dir.resolve("partitions"), qm, etcd.get(), variant, seed, schedules, System.out);
    report.text(
        String.format(
            Locale.ROOT,
            "%-5s %-4s %-5s %-5s %-5s %-8s %-9s %-10s %-10s %s",
            "seed",
            "ops",
            "acked",
            "lost",
            "anom",
            "samples",
            "revisions",
            "violations",
            "converged",
            "faults"));
    int clean = 0;
    for (var r : results) {
      boolean ok =
          r.lost().isEmpty()
              && r.anomalies().isEmpty()
              && r.violations().isEmpty()
              && r.convergedInBound();
      clean += ok ? 1 : 0;
      report.text(
          String.format(
              Locale.ROOT,
              "%-5d %-4d %-5d %-5d %-5d %-8d %-9d %-10d %-10s %s",
              r.seed(),
              r.operations(),
              r.acknowledged(),
              r.lost().size(),
              r.anomalies().size(),
              r.samples(),
              r.revisionsJudged(),
              r.violations().size(),
              r.convergedInBound() ? r.converged().toSeconds() + "s" : "NO",
              String.join("; ", r.faults())));
      r.lost().forEach(l -> report.text("      lost: " + l));
      r.anomalies().forEach(a -> report.text("      anomaly: " + a));
      r.violations().forEach(v -> report.text("      " + v));
    }
    report.line(
        "schedules with nothing lost, no anomaly, no violation, converged within "
            + Harness.CONVERGENCE_BOUND.toSeconds()
            + "s",
        clean + " of " + results.size());
    report.line("histories (one per seed)", dir.resolve("partitions").toString());
  }
}
