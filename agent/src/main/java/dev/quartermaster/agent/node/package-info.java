/**
 * The agent's side of the API: the Node's status (registration, heartbeat, membership) and the
 * per-claim reconcile that prepares and unprepares claims allocated to this node.
 */
package dev.quartermaster.agent.node;
