/**
 * The Quartermaster node agent ({@code qm agent}) as a library: {@link
 * dev.quartermaster.agent.NodeAgent} with its {@link dev.quartermaster.agent.NodeAgentConfig}, and
 * the ledger tools {@link dev.quartermaster.agent.LedgerShow} and {@link
 * dev.quartermaster.agent.LedgerReset}.
 *
 * <p>Packages: {@code ledger} (the pure claim state machine and the side effects derived from it),
 * {@code checkpoint} (its durable, checksummed, atomically written file, and the state-directory
 * lock), {@code prepare} (the I/O shell: ledger, persist, CDI, effects), {@code cdi} (per-claim CDI
 * specs), {@code devices} (the device root), {@code effects} (domain membership and helper
 * processes), {@code node} (Node status and the claim reconcile), {@code names} (path-safe ids).
 *
 * <p>Device root layout (a simulated node; real discovery comes next):
 *
 * <pre>
 * &lt;root&gt;/gpus/&lt;name&gt;/{uuid,model,memory,minor}   one GPU per directory; name is the device name
 * &lt;root&gt;/dev/nvidia&lt;minor&gt;                      its device node (a regular file for now)
 * </pre>
 *
 * <p>State directory: {@code ledger.json} (checkpoint), {@code agent.lock} (holder's pid), {@code
 * helpers/<domain>.pid|.log}, and {@code cdi/} when the CDI directory defaults there.
 */
package dev.quartermaster.agent;
