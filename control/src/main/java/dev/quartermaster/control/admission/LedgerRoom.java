package dev.quartermaster.control.admission;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.QuotaLedgerSpec;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * How large a cohort's quota ledger may grow. It is one object, written whole at each decision, and
 * a store refuses a write larger than it takes: 1 MiB per request body through the API (controllers
 * that run apart from the server write over HTTP), 1.5 MiB per etcd request. So a decision whose
 * ledger would be larger than {@link #bytes} admits only as many as fit (releases, evictions and
 * requeues still go through; the rest are admitted as the ledger shrinks), and says so on each
 * workload it held back, instead of a write the store refuses at every retry with nothing said to
 * anyone.
 *
 * <p>An entry is ~180 bytes (a 36-character uid, names of ~8, one group, one device class), so the
 * default room holds ~5,600 admitted workloads per cohort; {@code LedgerRoomTest} measures it.
 *
 * <p>The size is the ledger's JSON, counted exactly but without encoding the whole ledger at each
 * decision: each entry's encoding is kept until the entry changes (an entry changes when it is
 * admitted, starts or is evicted; a decision of a 1,000-entry cohort changes a few).
 */
public final class LedgerRoom {
  /** Under the API's 1 MiB body limit, with room for the object's metadata. */
  public static final long STORE_BYTES = 1_000_000;

  private final long bytes;

  /** Cohort → workload → its entry's encoding. A cohort is decided by one worker at a time. */
  private final Map<String, Map<String, Sized>> known = new ConcurrentHashMap<>();

  private record Sized(Admitted entry, int bytes) {}

  /** A room of {@code bytes}, with its own cache of entry sizes: one per admission controller. */
  public LedgerRoom(long bytes) {
    if (bytes < 1) {
      throw new IllegalArgumentException("a ledger's room is at least 1 byte, not " + bytes);
    }
    this.bytes = bytes;
  }

  public long bytes() {
    return bytes;
  }

  boolean fits(String cohort, QuotaLedgerSpec spec) {
    return size(cohort, spec) <= bytes;
  }

  /**
   * The decision that admits the most of {@code admitted} (a decision's admissions, in the order it
   * made them) whose ledger fits, found by bisection: {@code decide} decides with the workloads it
   * is given held back (besides {@code backingOff}); {@code specOf} is a decision's ledger as it
   * would be written. Workloads admitted before are never held back, only {@code newcomers}.
   */
  AdmissionCycle.Plan mostThatFit(
      String cohort,
      List<String> admitted,
      Set<String> newcomers,
      Set<String> backingOff,
      Function<Set<String>, AdmissionCycle.Plan> decide,
      Function<AdmissionCycle.Plan, QuotaLedgerSpec> specOf) {
    Function<Integer, AdmissionCycle.Plan> firstOnes =
        k -> {
          var held = new HashSet<>(backingOff);
          held.addAll(newcomers);
          admitted.subList(0, k).forEach(held::remove);
          return decide.apply(held);
        };
    int lo = 0;
    int hi = admitted.size() - 1; // all of them did not fit
    var best = firstOnes.apply(0);
    while (lo < hi) {
      int mid = (lo + hi + 1) / 2;
      var plan = firstOnes.apply(mid);
      if (fits(cohort, specOf.apply(plan))) {
        lo = mid;
        best = plan;
      } else {
        hi = mid - 1;
      }
    }
    return best;
  }

  /**
   * {@code cohort}'s ledger {@code spec}'s JSON size in bytes, as {@link ObjectCodec} writes it.
   */
  long size(String cohort, QuotaLedgerSpec spec) {
    if (spec.admitted().isEmpty()) {
      return encoded(spec);
    }
    var entries = known.computeIfAbsent(cohort, c -> new java.util.HashMap<>());
    // A map's JSON is its entries' `"key":value`, comma-separated, inside its braces: the spec with
    // its first entry alone, less that entry, is what the entries go in (an empty map is left out).
    long size = 0;
    boolean first = true;
    for (var e : spec.admitted().entrySet()) {
      var sized = entries.get(e.getKey());
      if (sized == null || !sized.entry().equals(e.getValue())) {
        sized = new Sized(e.getValue(), encoded(e.getKey()) + 1 + encoded(e.getValue()));
        entries.put(e.getKey(), sized);
      }
      size += sized.bytes();
      if (first) {
        first = false;
        size += encoded(spec.withAdmitted(Map.of(e.getKey(), e.getValue()))) - (long) sized.bytes();
      }
    }
    size += spec.admitted().size() - 1;
    if (entries.size() > 2 * spec.admitted().size() + 64) {
      entries
          .keySet()
          .retainAll(spec.admitted().keySet()); // forget released workloads now and then
    }
    return size;
  }

  private static int encoded(Object value) {
    try {
      return ObjectCodec.json().writeValueAsBytes(value).length;
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
