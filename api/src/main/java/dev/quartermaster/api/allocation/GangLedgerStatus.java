package dev.quartermaster.api.allocation;

/** The ledger has no observed state: its reservations are its spec. */
public record GangLedgerStatus() {
  public static final GangLedgerStatus EMPTY = new GangLedgerStatus();
}
