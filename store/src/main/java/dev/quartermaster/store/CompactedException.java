package dev.quartermaster.store;

/** A read or watch asked for history at or below the store's compacted revision. */
public final class CompactedException extends StoreException {
  private final long compactedRevision;

  public CompactedException(long requested, long compactedRevision) {
    super(
        "revision "
            + requested
            + " has been compacted (compacted revision is "
            + compactedRevision
            + ")");
    this.compactedRevision = compactedRevision;
  }

  public long compactedRevision() {
    return compactedRevision;
  }
}
