package dev.quartermaster.store;

/** A store operation failed; subclasses say why. */
public class StoreException extends RuntimeException {
  public StoreException(String message) {
    super(message);
  }

  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
