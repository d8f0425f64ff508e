package dev.quartermaster.agent.checkpoint;

import dev.quartermaster.agent.ledger.ClaimLedger;
import dev.quartermaster.agent.ledger.ClaimState;
import dev.quartermaster.agent.ledger.LedgerChange;
import dev.quartermaster.agent.ledger.LedgerState;
import dev.quartermaster.core.env.Env;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link ClaimLedger} with its durable files: loads them (verifying them, and discarding device
 * state from an earlier boot), and makes changes durable before the caller acknowledges them.
 *
 * <p>Durability is a snapshot ({@code ledger.json}, {@link CheckpointCodec}) plus an append-only
 * journal of the changes since ({@code ledger.journal}, {@link LedgerJournal}). A commit appends
 * the changes made since the last one as one journal frame and fsyncs it; only when the journal
 * would pass {@code compactAtBytes} (or after a failed append) does it write a whole new snapshot
 * and start a new journal generation. So a durable step costs a few hundred bytes and one fsync,
 * not a rewrite of every claim and tombstone.
 *
 * <p>{@link #awaitDurable} is a group commit: the first caller to find no commit in progress
 * commits every change made so far; callers arriving while it runs wait for the commit after it,
 * which one of them performs. So N concurrent prepares share one fsync, and no caller returns
 * before a commit that covers its change is synced.
 */
public final class DurableLedger {
  private static final Logger LOG = LoggerFactory.getLogger(DurableLedger.class);

  /**
   * When the journal passes this size, the next commit writes a snapshot and starts a new journal.
   */
  public static final long DEFAULT_COMPACT_AT_BYTES = 4L << 20;

  /**
   * The mark file is fsynced at the first commit this long after its last fsync ({@link
   * JournalMark}: a late mark checks less after a power cut, never wrongly), so a commit costs one
   * fsync. (The copy in the journal's header rides along with the next commit's journal fsync.)
   */
  public static final Duration MARK_SYNC_INTERVAL = Duration.ofSeconds(1);

  private final ClaimLedger ledger;
  private final Env env;
  private final LedgerFile file;
  private final Optional<JournalFile> journal;
  private final String bootId;
  private final long compactAtBytes;
  private final Pending pending;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition written = lock.newCondition();
  private long durableVersion;
  private boolean writing;
  private long writes;

  /** Written by the committing caller outside the lock, read by anyone. */
  private volatile long compactions;

  // Touched only by the one caller that is committing (writing == true), so unguarded:
  private long generation;
  private long journalSize;
  private int journalFrames;

  /** The last mark written or found; null before the first. */
  private JournalMark mark;

  /** {@link Env#nanoTime} of the last mark fsync; none yet, so the first mark is fsynced. */
  private OptionalLong markSyncedAt = OptionalLong.empty();

  private boolean mustCompact;

  /** What {@link #open} found. */
  public record Opened(DurableLedger ledger, List<ClaimState> droppedByReboot, boolean fresh) {
    public Opened {
      droppedByReboot = List.copyOf(droppedByReboot);
    }
  }

  private DurableLedger(
      LedgerFile file,
      String bootId,
      Env env,
      Duration tombstoneTtl,
      long compactAtBytes,
      LedgerState state,
      long generation,
      long durableVersion) {
    this.pending = new Pending();
    this.ledger = new ClaimLedger(env, tombstoneTtl, state, pending::add);
    this.env = env;
    this.file = file;
    this.journal = file.journal();
    this.bootId = bootId;
    this.compactAtBytes = compactAtBytes;
    this.generation = generation;
    this.durableVersion = durableVersion;
  }

  /**
   * {@link #open(LedgerFile, String, Env, Duration, long)} compacting at {@link
   * #DEFAULT_COMPACT_AT_BYTES}.
   */
  public static Opened open(LedgerFile file, String bootId, Env env, Duration tombstoneTtl)
      throws IOException {
    return open(file, bootId, env, tombstoneTtl, DEFAULT_COMPACT_AT_BYTES);
  }

  /**
   * Loads the ledger from {@code file}: its snapshot, then its journal ({@link LedgerRecovery}).
   * Corruption is a {@link CorruptCheckpointException}, never an empty ledger; a torn last journal
   * frame (an append whose fsync never returned, so nobody was told it was durable) is cut off with
   * a warning. A ledger from another boot is discarded with a loud warning that lists the dropped
   * claims: nothing prepared survives a reboot (CDI specs under /var/run are gone, device state is
   * reset), so keeping those entries would only hold devices forever.
   */
  public static Opened open(
      LedgerFile file, String bootId, Env env, Duration tombstoneTtl, long compactAtBytes)
      throws IOException {
    Objects.requireNonNull(bootId, "bootId");
    var found = LedgerRecovery.read(file);
    if (found.isEmpty()) {
      var durable =
          new DurableLedger(
              file, bootId, env, tombstoneTtl, compactAtBytes, LedgerState.EMPTY, 0, -1);
      durable.compactOnNextCommit();
      durable.awaitDurable(0);
      LOG.info("no checkpoint at {}; starting with an empty ledger", file.location());
      return new Opened(durable, List.of(), true);
    }
    var recovered = found.get();
    long generation =
        Math.max(
            recovered.snapshot().journalGeneration(),
            switch (recovered.journal()) {
              case LedgerRecovery.JournalStatus.Stale stale -> stale.generation();
              case LedgerRecovery.JournalStatus.Replayed replayed ->
                  replayed.scan().header().generation();
              case LedgerRecovery.JournalStatus.Absent _ -> 0L;
            });
    if (!recovered.bootId().equals(bootId)) {
      var dropped = List.copyOf(recovered.state().claims().values());
      LOG.warn(
          "checkpoint {} was written during boot {}, this is boot {}: the machine rebooted and nothing"
              + " prepared survived. Discarding {} ledger entries: {}",
          file.location(),
          recovered.bootId(),
          bootId,
          dropped.size(),
          describe(dropped));
      var fresh = new LedgerState(Map.of(), recovered.state().version() + 1);
      var durable =
          new DurableLedger(file, bootId, env, tombstoneTtl, compactAtBytes, fresh, generation, -1);
      durable.mark = recovered.newestMark().orElse(null);
      durable.compactOnNextCommit();
      durable.awaitDurable(fresh.version());
      return new Opened(durable, dropped, false);
    }
    var state = recovered.state();
    if (recovered.journal() instanceof LedgerRecovery.JournalStatus.Replayed replayed
        && replayed.scan().header().format() == LedgerJournal.LEGACY_VERSION) {
      // A format-1 journal has no acknowledged count of its own: a new snapshot holds all of it,
      // and
      // the journal after it keeps its count in two places from the first commit on.
      LOG.info(
          "ledger journal {} is format {}, without an acknowledged count in its header; writing a snapshot of"
              + " all {} changes it holds and starting a format-{} journal",
          file.journal().orElseThrow().location(),
          LedgerJournal.LEGACY_VERSION,
          replayed.scan().changes(),
          LedgerJournal.VERSION);
      if (replayed.scan().torn()) {
        LOG.warn(
            "ledger journal {}: its last {} bytes are a torn write, dropped with it{}",
            file.journal().orElseThrow().location(),
            replayed.scan().size() - replayed.scan().validEnd(),
            recovered.mark().isPresent()
                ? " (they lie beyond its mark)"
                : "; without a mark, records acknowledged"
                    + " before a crash cannot be told from a torn write in a format-1 journal");
      }
      var durable =
          new DurableLedger(file, bootId, env, tombstoneTtl, compactAtBytes, state, generation, -1);
      durable.mark = recovered.newestMark().orElse(null);
      durable.compactOnNextCommit();
      durable.awaitDurable(state.version());
      return new Opened(durable, List.of(), false);
    }
    var durable =
        new DurableLedger(
            file, bootId, env, tombstoneTtl, compactAtBytes, state, generation, state.version());
    durable.mark = recovered.newestMark().orElse(null);
    durable.adopt(recovered);
    return new Opened(durable, List.of(), false);
  }

  /**
   * Makes the journal found on disk ready for appends: cut a torn tail, or start one where there is
   * none.
   */
  private void adopt(LedgerRecovery.Recovered recovered) throws IOException {
    if (journal.isEmpty()) {
      return;
    }
    var j = journal.get();
    switch (recovered.journal()) {
      case LedgerRecovery.JournalStatus.Replayed replayed -> {
        var scan = replayed.scan();
        if (scan.torn()) {
          // LedgerRecovery has held the journal to its mark already: what is torn lies beyond it.
          var newest = recovered.newestMark().filter(m -> m.generation() == generation);
          String vouched =
              newest.isPresent()
                  ? "; they lie beyond the "
                      + newest.get().frames()
                      + " records ("
                      + newest.get().length()
                      + " bytes) its acknowledged count (its header and its mark "
                      + j.markLocation()
                      + ") says were"
                      + " acknowledged, so no caller was told they were durable"
                  : "; this journal has no acknowledged count to check that against, so records acknowledged before a"
                      + " crash cannot be told from a torn write here";
          LOG.warn(
              "ledger journal {}: the last {} bytes, from byte offset {}, are a torn write (cut short or failing"
                  + " their CRC32C check, with nothing valid after them){}. Cutting them off; {} records before them"
                  + " are replayed.",
              j.location(),
              scan.size() - scan.validEnd(),
              scan.validEnd(),
              vouched,
              scan.frames().size());
          j.truncate(scan.validEnd());
        }
        journalSize = scan.validEnd();
        journalFrames = scan.frames().size();
        restoreLostCopy(recovered, j);
      }
      case LedgerRecovery.JournalStatus.Stale stale -> {
        LOG.info(
            "ledger journal {} is generation {}, older than the {} its snapshot names: a compaction was cut short"
                + " after its snapshot, which holds every change of that journal; starting the new one",
            j.location(),
            stale.generation(),
            recovered.snapshot().journalGeneration());
        startJournal(recovered.snapshot().journalGeneration(), recovered.state().version());
      }
      case LedgerRecovery.JournalStatus.Absent _ ->
          startJournal(recovered.snapshot().journalGeneration(), recovered.state().version());
    }
  }

  /**
   * Writes the acknowledged count back where one copy of it was lost (the mark file, or the journal
   * header's cells), now, so the next loss is caught by two again. Recovery already held the
   * journal to the copy that is left ({@link AcknowledgedRecords}), so the journal is whole.
   */
  private void restoreLostCopy(LedgerRecovery.Recovered recovered, JournalFile j)
      throws IOException {
    var header = recovered.headerMark();
    var markFile = recovered.mark().filter(m -> m.generation() == generation);
    String lost;
    // A mark file of an older generation is not lost: its fsync trailed the last compaction's.
    if (recovered.mark().isEmpty() && header.filter(m -> m.frames() > 0).isPresent()) {
      // Not a crash: the mark file is made durable before the first record a header count vouches
      // for.
      lost =
          "its mark file "
              + j.markLocation()
              + " is missing or unreadable; the journal's own header vouches for "
              + header.get().frames()
              + " acknowledged records, all present";
    } else if (header.isEmpty() && markFile.filter(m -> m.frames() > 0).isPresent()) {
      // Not a crash either: the first record's fsync made the header's first count durable.
      lost =
          "the acknowledged count in its header is unreadable; its mark file "
              + j.markLocation()
              + " vouches for "
              + markFile.get().frames()
              + " acknowledged records, all present";
    } else {
      return;
    }
    LOG.warn("ledger journal {}: {}. Writing the count back to both places.", j.location(), lost);
    writeMark(generation, recovered.state().version());
    j.force();
    j.forceMark();
    markSyncedAt = OptionalLong.of(env.nanoTime());
  }

  /** One line per entry: uid (name) state devices. */
  public static String describe(List<ClaimState> entries) {
    if (entries.isEmpty()) {
      return "(none)";
    }
    return entries.stream()
        .map(e -> e.claim() + " " + e.stateName() + " " + e.devices())
        .collect(Collectors.joining("; "));
  }

  public ClaimLedger ledger() {
    return ledger;
  }

  public String bootId() {
    return bootId;
  }

  public String location() {
    return file.location();
  }

  /** Makes every change made so far durable. */
  public void persist() throws IOException {
    awaitDurable(ledger.version());
  }

  /** Returns once a commit covering ledger version {@code version} is durable. */
  public void awaitDurable(long version) throws IOException {
    lock.lock();
    try {
      while (durableVersion < version) {
        if (writing) {
          written.awaitUninterruptibly();
          continue;
        }
        writing = true;
        long covered = -1;
        IOException failure = null;
        lock.unlock();
        try {
          covered = commit();
        } catch (IOException e) {
          failure = e;
        } finally {
          lock.lock();
          writing = false;
          written.signalAll();
        }
        if (failure != null) {
          throw failure;
        }
        writes++;
        durableVersion = Math.max(durableVersion, covered);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Commits (fsyncs) so far: journal appends and snapshots; with group commit, fewer than the
   * changes.
   */
  public long writes() {
    lock.lock();
    try {
      return writes;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Snapshots written so far (at open, when the journal grew past its limit, after a failed
   * append).
   */
  public long compactions() {
    return compactions;
  }

  private void compactOnNextCommit() {
    mustCompact = true;
  }

  /**
   * Makes every change so far durable; returns the ledger version it covers. Run by one caller at a
   * time.
   */
  private long commit() throws IOException {
    var batch = pending.drain();
    if (journal.isEmpty() || mustCompact || batch.isEmpty()) {
      return compact();
    }
    var frame = LedgerJournal.frame(batch);
    if (journalSize + frame.length > compactAtBytes) {
      return compact();
    }
    var j = journal.get();
    try {
      j.append(frame);
      j.force();
      journalSize += frame.length;
      journalFrames++;
      // Only once the mark says so is the frame acknowledged: recovery then treats its loss as
      // loss.
      writeMark(generation, batch.getLast().version());
    } catch (IOException e) {
      // These changes have left the queue, and the file may end in part of the frame (or, after a
      // failed fsync, in pages the kernel no longer promises to write). A snapshot covers them all
      // and starts a clean journal, so the next commit writes one instead of appending.
      mustCompact = true;
      throw e;
    }
    return batch.getLast().version();
  }

  /**
   * Writes the whole ledger as a snapshot naming a new journal generation, then starts that
   * journal. A crash between the two leaves an older journal beside the snapshot, which recovery
   * ignores because the snapshot holds its every change; a crash before the snapshot's rename
   * leaves the old pair, intact.
   */
  private long compact() throws IOException {
    mustCompact = true; // until both steps succeed
    var snapshot = ledger.snapshot();
    pending.dropThrough(snapshot.version());
    generation++; // also on a retry after a failure, so no generation is ever reused
    file.write(CheckpointCodec.encode(snapshot, bootId, generation));
    if (journal.isPresent()) {
      startJournal(generation, snapshot.version());
    }
    mustCompact = false;
    compactions++;
    return snapshot.version();
  }

  /**
   * Starts the journal of {@code journalGeneration}, continuing a snapshot of ledger version {@code
   * version}.
   */
  private void startJournal(long journalGeneration, long version) throws IOException {
    var header = LedgerJournal.header(journalGeneration, bootId);
    journal.orElseThrow().replace(header);
    journalSize = header.length;
    journalFrames = 0;
    writeMark(journalGeneration, version);
  }

  /**
   * Records how much of the journal of {@code journalGeneration} is acknowledged, through ledger
   * version {@code version}, in both places: the journal's header (durable with the next journal
   * fsync) and the mark file (fsynced at most once per interval).
   */
  private void writeMark(long journalGeneration, long version) throws IOException {
    var next =
        mark == null
            ? new JournalMark(0, journalGeneration, journalSize, journalFrames, version)
            : mark.next(journalGeneration, journalSize, journalFrames, version);
    var j = journal.orElseThrow();
    j.writeHeaderMark(next);
    j.writeMark(next);
    mark = next;
    long now = env.nanoTime();
    if (markSyncedAt.isEmpty() || now - markSyncedAt.getAsLong() >= MARK_SYNC_INTERVAL.toNanos()) {
      j.forceMark();
      markSyncedAt = OptionalLong.of(now);
    }
  }

  /** Changes not yet committed, in version order; filled by the ledger under its own lock. */
  private static final class Pending {
    private final ArrayDeque<LedgerChange> changes = new ArrayDeque<>();

    synchronized void add(LedgerChange change) {
      changes.addLast(change);
    }

    synchronized List<LedgerChange> drain() {
      var out = List.copyOf(changes);
      changes.clear();
      return out;
    }

    /** Forgets the changes a snapshot of version {@code version} holds. */
    synchronized void dropThrough(long version) {
      while (!changes.isEmpty() && changes.peekFirst().version() <= version) {
        changes.removeFirst();
      }
    }
  }
}
