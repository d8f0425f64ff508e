package dev.quartermaster.store;

/** A read asked for a revision the store has not reached yet. */
public final class FutureRevisionException extends StoreException {
  public FutureRevisionException(long requested, long current) {
    super("revision " + requested + " is in the future (current revision is " + current + ")");
  }
}
