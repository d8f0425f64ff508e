package dev.quartermaster.store;

import java.util.List;

/**
 * What a transaction did.
 *
 * @param succeeded whether the compares held
 * @param revision the revision the transaction committed at, or the current revision if it wrote
 *     nothing
 * @param written the key-values as written by the branch that ran (puts only), in op order
 */
public record TxnResult(boolean succeeded, long revision, List<KeyValue> written) {
  public TxnResult {
    written = List.copyOf(written);
  }
}
