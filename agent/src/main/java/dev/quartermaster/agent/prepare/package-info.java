/**
 * Prepare and unprepare on a node: the ledger's decisions made durable, then CDI specs and side
 * effects ({@link dev.quartermaster.agent.prepare.ClaimPreparer}).
 */
package dev.quartermaster.agent.prepare;
