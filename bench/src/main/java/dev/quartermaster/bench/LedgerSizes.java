package dev.quartermaster.bench;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.meta.Kinds;
import java.util.Locale;

/**
 * How large the two ledgers a store write must hold whole have grown: the largest cohort's quota
 * ledger (its admissions) and the gang ledger (its reservations), as the bytes the store keeps,
 * beside the smallest request limit on the way (the API's 1 MiB body; etcd takes 1.5 MiB).
 */
record LedgerSizes(long quotaBytes, int quotaEntries, long gangBytes, int gangEntries) {
  static final long LIMIT = 1_048_576;

  static LedgerSizes of(ApiClient api) {
    long quotaBytes = 0;
    int quotaEntries = 0;
    for (var l : api.list(Kinds.QUOTA_LEDGER).items()) {
      long bytes = ObjectCodec.toJson(l).length;
      if (bytes > quotaBytes) {
        quotaBytes = bytes;
        quotaEntries =
            l.spec().admitted().size() + l.spec().nominated().size() + l.spec().requeued().size();
      }
    }
    long gangBytes = 0;
    int gangEntries = 0;
    for (var g : api.list(Kinds.GANG_LEDGER).items()) {
      gangBytes = Math.max(gangBytes, ObjectCodec.toJson(g).length);
      gangEntries = Math.max(gangEntries, g.spec().reservations().size());
    }
    return new LedgerSizes(quotaBytes, quotaEntries, gangBytes, gangEntries);
  }

  String line() {
    return String.format(
        Locale.ROOT,
        "largest quota ledger %,d bytes for %,d entries (%.0f bytes each; %.1f%% of the 1 MiB"
            + " limit), gang ledger %,d bytes for %,d reservations",
        quotaBytes,
        quotaEntries,
        quotaEntries == 0 ? 0.0 : quotaBytes / (double) quotaEntries,
        100.0 * quotaBytes / LIMIT,
        gangBytes,
        gangEntries);
  }
}
