/**
 * Validation of the identifiers that become file names and CDI names (claim uids, device names): a
 * path escape is a clear error before anything is written.
 */
package dev.quartermaster.agent.names;
