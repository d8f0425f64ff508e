package dev.quartermaster.api.queue;

/** A ledger has no observed state: its spec is the truth. */
public record QuotaLedgerStatus() {
  public static final QuotaLedgerStatus EMPTY = new QuotaLedgerStatus();
}
