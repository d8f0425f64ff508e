/**
 * The ledger's durable checkpoint: our own JSON format with a version, a SHA-256 checksum and the
 * boot id ({@link dev.quartermaster.agent.checkpoint.CheckpointCodec}); atomic, fsynced writes with
 * group commit ({@link dev.quartermaster.agent.checkpoint.DurableLedger}, {@link
 * dev.quartermaster.agent.checkpoint.AtomicLedgerFile}); a simulated file that loses unsynced
 * writes on a crash; and the state-directory lock that keeps a second agent out.
 */
package dev.quartermaster.agent.checkpoint;
