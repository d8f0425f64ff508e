package dev.quartermaster.api.client;

/**
 * An {@link ApiClient} over a store that can make writes conditional on a fencing token: the
 * in-process registry, whose every write is one store transaction.
 */
public interface FencingClient extends ApiClient {

  /**
   * This client, except that each write also compares {@code key}'s revision with {@code revision}
   * in its own transaction: once the key has moved (a newer leader's term began), every write fails
   * {@code Unavailable} naming the fence, and nothing of it is applied. Reads and watches are
   * unchanged.
   */
  ApiClient fencedBy(String key, long revision);
}
