/**
 * The claim ledger: who holds which device on this node ({@link
 * dev.quartermaster.agent.ledger.ClaimLedger}, states in {@link
 * dev.quartermaster.agent.ledger.ClaimState}), and the node-level side effects derived from it
 * ({@link dev.quartermaster.agent.ledger.NodeEffects}). Pure logic on an Env; persistence is in
 * {@code checkpoint}, and the I/O that follows a change is the caller's.
 */
package dev.quartermaster.agent.ledger;
