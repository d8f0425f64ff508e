/**
 * The ledger's durable state: a snapshot in our own JSON format with a version, a SHA-256 checksum
 * and the boot id ({@link dev.quartermaster.agent.checkpoint.CheckpointCodec}), written atomically
 * ({@link dev.quartermaster.agent.checkpoint.AtomicLedgerFile}), plus an append-only, CRC32C-framed
 * journal of the changes since ({@link dev.quartermaster.agent.checkpoint.LedgerJournal}) whose
 * appends share fsyncs (group commit, {@link dev.quartermaster.agent.checkpoint.DurableLedger});
 * the acknowledged count of that journal, kept twice (the mark file and the journal's header,
 * {@link dev.quartermaster.agent.checkpoint.JournalMark}) so that no single lost file hides lost
 * records; recovery of the pair ({@link dev.quartermaster.agent.checkpoint.LedgerRecovery}); a
 * simulated file that loses unsynced writes on a crash; and the state-directory lock that keeps a
 * second agent out.
 */
package dev.quartermaster.agent.checkpoint;
