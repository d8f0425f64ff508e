package dev.quartermaster.store;

/**
 * A stored value (or the row around it) no longer matches the checksum written with it: the file
 * was changed outside the store, or the disk handed back other bytes than it was given. Never
 * transient and never worth a retry; the message names the key, the revision and where it is kept.
 */
public final class CorruptValueException extends StoreException {
  private final String key;
  private final long revision;

  public CorruptValueException(String key, long revision, String message) {
    super(message);
    this.key = key;
    this.revision = revision;
  }

  /** The key as it reads now (a damaged key reads as the damaged bytes decode). */
  public String key() {
    return key;
  }

  /** The revision of the damaged row, as it reads now. */
  public long revision() {
    return revision;
  }
}
