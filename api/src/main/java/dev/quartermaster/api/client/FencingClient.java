package dev.quartermaster.api.client;

/**
 * An {@link ApiClient} over a store that can make writes conditional on a fencing token: the
 * in-process registry, whose every write is one store transaction.
 */
public interface FencingClient extends ApiClient {

  /** How the message of a write refused because its term has ended begins. */
  String TERM_ENDED = "fenced: ";

  /** Whether {@code e} is a write refused because the term that fenced it has ended. */
  static boolean termEnded(dev.quartermaster.api.error.ApiException e) {
    return e.reason() == dev.quartermaster.api.error.ApiError.Reason.Unavailable
        && e.getMessage() != null
        && e.getMessage().startsWith(TERM_ENDED);
  }

  /**
   * This client, except that each write also compares {@code key}'s revision with {@code revision}
   * in its own transaction: once the key has moved (a newer leader's term began), every write fails
   * {@code Unavailable} naming the fence, and nothing of it is applied. Reads and watches are
   * unchanged.
   */
  ApiClient fencedBy(String key, long revision);

  /**
   * The key each fenced write also puts, in its own transaction, the revision of {@code fenceKey}
   * it was fenced by: the store's history then says under which term every controller write was
   * decided, and a checker can judge that none landed after its term ended (TERM).
   */
  static String stampKey(String fenceKey) {
    return fenceKey + STAMP_SUFFIX;
  }

  /** What {@link #stampKey} appends to a fence key. */
  String STAMP_SUFFIX = "-writes";

  /**
   * This client with the writes {@link #fencedBy} would stamp, but not fenced: each write records
   * {@code key}'s term and lands whatever became of it. What a store without fencing tokens does;
   * only for the naive variant that shows what fencing prevents, never served.
   */
  ApiClient unfencedBy(String key, long revision);
}
