package dev.quartermaster.agent.checkpoint;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A ledger file (snapshot and journal) in memory with a crash model: what was written but not yet
 * synced is lost on {@link #crash}. By default every snapshot {@link #write} and journal {@code
 * replace} is synced before it returns, as the real file's; journal appends stay unsynced until the
 * journal's {@code force}, and so do the in-place writes of the journal header's mark cells. {@link
 * #failNextWrites} makes the next writes of either kind throw before they sync (the
 * crash-in-the-middle case), and {@link #holdUnsynced} keeps the next snapshot writes unsynced
 * until {@link #sync}, for a simulation that crashes between a write and its fsync.
 */
public final class SimulatedLedgerFile implements LedgerFile {
  private Optional<byte[]> durable = Optional.empty();
  private Optional<byte[]> unsynced = Optional.empty();
  private Optional<byte[]> journalDurable = Optional.empty();
  private final ByteArrayOutputStream journalUnsynced = new ByteArrayOutputStream();
  private final Journal journal = new Journal();

  /** The mark file as written, and as last forced: a crash puts the first back to the second. */
  private final byte[] mark = new byte[2 * JournalMark.CELL];

  private final byte[] markDurable = new byte[2 * JournalMark.CELL];

  /**
   * In-place writes into the journal header's mark cells since its last force, in order: a crash
   * drops them.
   */
  private final List<Map.Entry<Long, byte[]>> headerUnsynced = new ArrayList<>();

  private boolean marked;
  private boolean markedDurable;
  private int failures;
  private boolean hold;
  private long writes;
  private long forces;

  @Override
  public String location() {
    return "simulated:ledger.json";
  }

  @Override
  public synchronized Optional<byte[]> read() {
    return unsynced.or(() -> durable).map(byte[]::clone);
  }

  @Override
  public synchronized void write(byte[] bytes) throws IOException {
    failIfAsked();
    writes++;
    unsynced = Optional.of(bytes.clone());
    if (!hold) {
      sync();
    }
  }

  @Override
  public Optional<JournalFile> journal() {
    return Optional.of(journal);
  }

  /** Makes the last snapshot write durable. */
  public synchronized void sync() {
    unsynced.ifPresent(b -> durable = Optional.of(b));
    unsynced = Optional.empty();
  }

  /** Loses every unsynced write and append, as a power cut or kill -9 before fsync would. */
  public synchronized void crash() {
    unsynced = Optional.empty();
    journalUnsynced.reset();
    headerUnsynced.clear();
    System.arraycopy(markDurable, 0, mark, 0, mark.length);
    marked = markedDurable;
  }

  /**
   * Deletes the journal and its mark together, as an operator's {@code rm ledger.journal
   * ledger.journal.mark} would: what is left is the last snapshot, which cannot tell that anything
   * was lost.
   */
  public synchronized void loseJournal() {
    journalDurable = Optional.empty();
    journalUnsynced.reset();
    headerUnsynced.clear();
    Arrays.fill(mark, (byte) 0);
    Arrays.fill(markDurable, (byte) 0);
    marked = false;
    markedDurable = false;
  }

  /** Makes the next {@code n} writes (snapshot writes, journal appends and replacements) fail. */
  public synchronized void failNextWrites(int n) {
    failures = n;
  }

  /** While on, snapshot writes stay unsynced until {@link #sync}. */
  public synchronized void holdUnsynced(boolean on) {
    hold = on;
  }

  /** Snapshot writes that succeeded. */
  public synchronized long writes() {
    return writes;
  }

  /** Journal fsyncs so far. */
  public synchronized long forces() {
    return forces;
  }

  /** The durable snapshot bytes, if any (what a restart after a crash would read). */
  public synchronized Optional<byte[]> durable() {
    return durable.map(byte[]::clone);
  }

  /** The durable journal bytes, if any. */
  public synchronized Optional<byte[]> journalDurable() {
    return journalDurable.map(byte[]::clone);
  }

  private void failIfAsked() throws IOException {
    if (failures > 0) {
      failures--;
      throw new IOException("simulated: write failed before fsync");
    }
  }

  /** The journal half, sharing the file's lock, failures and crash. */
  private final class Journal implements JournalFile {
    @Override
    public String location() {
      return "simulated:ledger.journal";
    }

    @Override
    public Optional<byte[]> read() {
      synchronized (SimulatedLedgerFile.this) {
        return journalDurable.map(d -> withHeader(concat(d, journalUnsynced.toByteArray())));
      }
    }

    @Override
    public String markLocation() {
      return "simulated:ledger.journal.mark";
    }

    @Override
    public Optional<byte[]> readMark() {
      synchronized (SimulatedLedgerFile.this) {
        return marked ? Optional.of(mark.clone()) : Optional.empty();
      }
    }

    @Override
    public void writeMark(JournalMark next) {
      synchronized (SimulatedLedgerFile.this) {
        System.arraycopy(next.encode(), 0, mark, (int) next.offset(), JournalMark.SLOT);
        marked = true;
      }
    }

    @Override
    public void writeHeaderMark(JournalMark next) {
      synchronized (SimulatedLedgerFile.this) {
        headerUnsynced.add(Map.entry(LedgerJournal.markOffset(next), next.encode()));
      }
    }

    @Override
    public void forceMark() {
      synchronized (SimulatedLedgerFile.this) {
        System.arraycopy(mark, 0, markDurable, 0, mark.length);
        markedDurable = marked;
      }
    }

    @Override
    public void replace(byte[] content) throws IOException {
      synchronized (SimulatedLedgerFile.this) {
        failIfAsked();
        journalUnsynced.reset();
        headerUnsynced.clear();
        journalDurable = Optional.of(content.clone());
      }
    }

    @Override
    public void append(byte[] bytes) throws IOException {
      synchronized (SimulatedLedgerFile.this) {
        failIfAsked();
        journalUnsynced.writeBytes(bytes);
      }
    }

    @Override
    public void force() {
      synchronized (SimulatedLedgerFile.this) {
        forces++;
        journalDurable =
            journalDurable.map(d -> withHeader(concat(d, journalUnsynced.toByteArray())));
        journalUnsynced.reset();
        headerUnsynced.clear();
      }
    }

    @Override
    public void truncate(long size) {
      synchronized (SimulatedLedgerFile.this) {
        var all =
            withHeader(concat(journalDurable.orElse(new byte[0]), journalUnsynced.toByteArray()));
        journalUnsynced.reset();
        headerUnsynced.clear();
        journalDurable = Optional.of(Arrays.copyOf(all, (int) size));
      }
    }
  }

  /** {@code journal} (a fresh copy) with the unsynced header-cell writes applied. */
  private byte[] withHeader(byte[] journal) {
    for (var write : headerUnsynced) {
      int at = Math.toIntExact(write.getKey());
      if (at < journal.length) {
        System.arraycopy(
            write.getValue(),
            0,
            journal,
            at,
            Math.min(write.getValue().length, journal.length - at));
      }
    }
    return journal;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    var out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
