package dev.quartermaster.control.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.Eviction;
import dev.quartermaster.api.queue.EvictionReason;
import dev.quartermaster.api.queue.Nomination;
import dev.quartermaster.api.queue.QuotaLedgerSpec;
import dev.quartermaster.api.queue.Requeue;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A cohort's ledger is measured as the store will hold it: the room's count, kept per entry, is the
 * JSON's length exactly through admissions, starts, evictions and releases; and the default room
 * holds the thousands of admissions per cohort the scale bench makes (1,000 at 10,000 nodes).
 */
class LedgerRoomTest {
  private static final Instant NOW = Instant.parse("2026-11-30T10:00:00Z");

  private static long json(QuotaLedgerSpec spec) throws Exception {
    return ObjectCodec.json().writeValueAsBytes(spec).length;
  }

  private static Admitted entry(int i) {
    return new Admitted(
        new UUID(0, i).toString(),
        "team-" + (i % 100),
        Map.of("workers", 10),
        Map.of("gpu", 10),
        100,
        NOW.plusSeconds(i),
        Optional.empty(),
        List.of(),
        false);
  }

  private static QuotaLedgerSpec ledger(int from, int to) {
    var admitted = new TreeMap<String, Admitted>();
    for (int i = from; i < to; i++) {
      admitted.put("s-" + i, entry(i));
    }
    return new QuotaLedgerSpec(List.of("team-0", "team-1"), admitted, Map.of());
  }

  @Test
  void itsCountIsTheJsonLengthAsEntriesComeChangeAndGo() throws Exception {
    var room = new LedgerRoom(1_000);
    var empty = QuotaLedgerSpec.EMPTY;
    assertThat(room.size("c", empty)).isEqualTo(json(empty));
    var one = ledger(0, 1);
    assertThat(room.size("c", one)).isEqualTo(json(one));
    var many = ledger(0, 300);
    assertThat(room.size("c", many)).isEqualTo(json(many));
    // Entries that change after they were counted: started, evicted (longer), a preemptor's list.
    var changed = new TreeMap<>(many.admitted());
    changed.put("s-1", changed.get("s-1").markStarted());
    changed.put(
        "s-2",
        changed
            .get("s-2")
            .evictedBy(new Eviction("s-299", "uid-p", EvictionReason.Preempted, NOW)));
    var preemptor = changed.get("s-3");
    changed.put(
        "s-3",
        new Admitted(
            preemptor.uid(),
            preemptor.queue(),
            preemptor.replicas(),
            preemptor.usage(),
            preemptor.priority(),
            preemptor.at(),
            Optional.empty(),
            List.of("uid-a", "uid-b"),
            true));
    var next =
        many.withAdmitted(changed)
            .withRequeued(Map.of("s-9", new Requeue("u9", 2, EvictionReason.Preempted, NOW, 20)));
    next =
        new QuotaLedgerSpec(
            next.queues(),
            next.admitted(),
            Map.of("s-700", new Nomination("u700", "team-0", 5, List.of("s-4"), NOW)),
            next.requeued());
    assertThat(room.size("c", next)).isEqualTo(json(next));
    // Released entries: the count forgets them.
    var fewer = ledger(100, 200);
    assertThat(room.size("c", fewer)).isEqualTo(json(fewer));
    // Another cohort's entries are counted apart.
    assertThat(room.size("d", ledger(0, 10))).isEqualTo(json(ledger(0, 10)));
    assertThat(room.size("c", fewer)).isEqualTo(json(fewer));
  }

  @Test
  void theDefaultRoomHoldsThousandsOfAdmissionsAndRefusesMore() throws Exception {
    var room = new LedgerRoom(LedgerRoom.STORE_BYTES);
    var thousand = ledger(0, 1_000);
    long bytes = room.size("c", thousand);
    double perEntry = bytes / 1_000.0;
    long fits = (long) (LedgerRoom.STORE_BYTES / perEntry);
    System.out.printf(
        "a cohort's ledger of 1,000 admissions: %,d bytes, %.0f per entry; the room (%,d bytes)"
            + " holds ~%,d%n",
        bytes, perEntry, LedgerRoom.STORE_BYTES, fits);
    assertThat(room.fits("c", thousand)).isTrue();
    assertThat(fits).as("admissions a cohort's ledger holds").isGreaterThan(3_000);
    assertThat(room.fits("c", ledger(0, (int) fits + 100))).isFalse();
    // The room is under both limits on the way: the API's 1 MiB body and etcd's 1.5 MiB request.
    assertThat(LedgerRoom.STORE_BYTES).isLessThan(1_048_576);
  }
}
