package dev.quartermaster.control.admission;

import static dev.quartermaster.control.admission.Cohorts.NOW;
import static dev.quartermaster.control.admission.Cohorts.queue;
import static dev.quartermaster.control.admission.Cohorts.snapshot;
import static dev.quartermaster.control.admission.Cohorts.workload;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.QueueOrdering;
import dev.quartermaster.api.queue.QueueStatus;
import dev.quartermaster.api.queue.QuotaLedgerSpec;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A decision's last step alone: each queue says what waits, what runs, what it borrows and lends.
 */
class QueueStatusesTest {
  @Test
  void eachQueueSaysWhatWaitsAndWhatItUsesBorrowsAndLends() {
    var queues =
        List.of(
            queue("a", 4, QueueOrdering.StrictFIFO, 1), queue("b", 4, QueueOrdering.StrictFIFO, 1));
    var big = workload("big", "a", 6);
    var waiting = workload("waiting", "a", 1);
    var ledger =
        new QuotaLedgerSpec(
            List.of("a", "b"),
            Map.of("big", new Admitted("uid-big", "a", Map.of("w", 1), Map.of("gpu", 6), 0, NOW)));
    var s = snapshot(queues, ledger, List.of(big, waiting), WorkloadFacts.NONE);

    var statuses = QueueStatuses.of(s, new NextLedger(s, CarryOver.of(s)));

    assertThat(statuses.get("a"))
        .isEqualTo(new QueueStatus(1, 1, Map.of("gpu", 6), Map.of("gpu", 2), Map.of()));
    assertThat(statuses.get("b"))
        .isEqualTo(new QueueStatus(0, 0, Map.of(), Map.of(), Map.of("gpu", 2)));
  }
}
