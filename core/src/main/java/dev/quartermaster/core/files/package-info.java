/**
 * Files only their owner may read: {@link dev.quartermaster.core.files.OwnerOnly} makes and
 * tightens the data and state directories (0700) and state files (0600) that hold a cluster's
 * objects, tokens, journals and task logs, which other local users must not read.
 */
package dev.quartermaster.core.files;
