/**
 * Node-level side effects applied from the ledger: compute-domain membership (published on the
 * Node) and per-domain helper processes, reconciled by difference by {@link
 * dev.quartermaster.agent.effects.EffectsReconciler} after every ledger change and at start-up.
 */
package dev.quartermaster.agent.effects;
