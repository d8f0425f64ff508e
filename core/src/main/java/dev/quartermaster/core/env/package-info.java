/**
 * Time, deferred work and randomness for logic: {@link dev.quartermaster.core.env.Env}, with a
 * production implementation on the system clock and virtual threads, and a deterministic one in
 * virtual time on one thread from one seed.
 */
package dev.quartermaster.core.env;
