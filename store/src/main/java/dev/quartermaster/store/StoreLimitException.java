package dev.quartermaster.store;

/**
 * A write larger than the store accepts (etcd's operations per transaction or bytes per request):
 * not transient, so never worth a retry; the message names the limit and by how much.
 */
public final class StoreLimitException extends StoreException {
  public StoreLimitException(String message) {
    super(message);
  }
}
