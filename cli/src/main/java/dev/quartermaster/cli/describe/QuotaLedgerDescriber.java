package dev.quartermaster.cli.describe;

import dev.quartermaster.api.format.Age;
import dev.quartermaster.api.queue.QuotaLedger;
import dev.quartermaster.api.table.KindTables;
import dev.quartermaster.api.table.Table;
import java.time.Duration;
import java.util.List;

/** A cohort's ledger: its queues, and every workload admitted, through which queue, using what. */
final class QuotaLedgerDescriber implements Describer<QuotaLedger> {

  @Override
  public void describe(QuotaLedger ledger, DescribeContext context, Description out) {
    out.field("Queues", String.join(", ", ledger.spec().queues()));
    var rows =
        ledger.spec().admitted().entrySet().stream()
            .map(
                e ->
                    List.of(
                        e.getKey(),
                        e.getValue().queue(),
                        KindTables.counts(e.getValue().usage(), "none"),
                        KindTables.counts(e.getValue().replicas(), "none"),
                        Integer.toString(e.getValue().priority()),
                        Age.of(Duration.between(e.getValue().at(), context.now()))))
            .toList();
    out.table(
        "Admitted",
        new Table(List.of("WORKLOAD", "QUEUE", "USAGE", "REPLICAS", "PRIORITY", "ADMITTED"), rows));
  }
}
