package dev.quartermaster.store.sqlite;

import dev.quartermaster.store.StoreException;

/**
 * The store file is held by another open store. A type of its own so callers can suggest another
 * data directory for this case only: for a damaged or missing file that hint would mislead.
 */
public final class StoreInUseException extends StoreException {
  StoreInUseException(String message) {
    super(message);
  }

  StoreInUseException(String message, Throwable cause) {
    super(message, cause);
  }
}
