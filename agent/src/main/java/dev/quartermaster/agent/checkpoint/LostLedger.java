package dev.quartermaster.agent.checkpoint;

/**
 * What an agent does at start when the cluster believes claims prepared on its node that its ledger
 * does not know: {@link #REFUSE} to start ({@link LostLedgerException}, naming them), or, when the
 * operator says so ({@code qm agent --accept-lost-ledger}), {@link #ACCEPT}: start, and say what it
 * forgot.
 */
public enum LostLedger {
  REFUSE,
  ACCEPT
}
