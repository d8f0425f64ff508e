/**
 * What the agent's syncs (claims, tasks, volumes) share: {@link
 * dev.quartermaster.agent.sync.AgentContext}, the node they reconcile for and how they reach the
 * cluster.
 */
package dev.quartermaster.agent.sync;
