/**
 * Task output served from the node that ran it, as a kubelet serves its pods' logs: each task
 * writes its own file, opened for append so the agent can rotate it without holding the task's pipe
 * (a task survives its agent's restart); {@link dev.quartermaster.agent.logs.TaskLogStore} bounds
 * it and reads it back (tail, since, limit, follow); {@link
 * dev.quartermaster.agent.logs.TaskLogEndpoint} serves it over HTTPS to the API servers only, with
 * a self-signed certificate whose SHA-256 the Node's status publishes, and a key derived from the
 * agent's token ({@link dev.quartermaster.api.logs.TaskLogKey}).
 */
package dev.quartermaster.agent.logs;
