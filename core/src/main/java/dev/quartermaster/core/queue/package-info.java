/**
 * Work queues for controllers: a deduplicating queue that never hands one key to two workers at
 * once, rate limiters for retries, and {@link dev.quartermaster.core.queue.Workers} that drain a
 * queue on an {@link dev.quartermaster.core.env.Env}.
 */
package dev.quartermaster.core.queue;
