package dev.quartermaster.agent.checkpoint;

import dev.quartermaster.agent.ledger.ClaimLedger;
import dev.quartermaster.agent.ledger.ClaimState;
import dev.quartermaster.agent.ledger.LedgerState;
import dev.quartermaster.core.env.Env;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link ClaimLedger} with its checkpoint: loads it (verifying it, and discarding device state from
 * an earlier boot), and makes changes durable before the caller acknowledges them.
 *
 * <p>{@link #awaitDurable} is a group commit: the first caller to find no write in progress writes
 * the ledger as it is at that moment, which covers every change made so far; callers arriving while
 * it writes wait for the write after it, which one of them performs. So N concurrent prepares cost
 * about two fsyncs, not N, and no caller returns before a write that covers its change is synced.
 */
public final class DurableLedger {
  private static final Logger LOG = LoggerFactory.getLogger(DurableLedger.class);

  private final ClaimLedger ledger;
  private final LedgerFile file;
  private final String bootId;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition written = lock.newCondition();
  private long durableVersion;
  private boolean writing;
  private long writes;

  /** What {@link #open} found. */
  public record Opened(DurableLedger ledger, List<ClaimState> droppedByReboot, boolean fresh) {
    public Opened {
      droppedByReboot = List.copyOf(droppedByReboot);
    }
  }

  private DurableLedger(ClaimLedger ledger, LedgerFile file, String bootId, long durableVersion) {
    this.ledger = ledger;
    this.file = file;
    this.bootId = bootId;
    this.durableVersion = durableVersion;
  }

  /**
   * Loads the ledger from {@code file}. A corrupt file is a {@link CorruptCheckpointException}, never
   * an empty ledger. A checkpoint from another boot is discarded with a loud warning that lists the
   * dropped claims: nothing prepared survives a reboot (CDI specs under /var/run are gone, device
   * state is reset), so keeping those entries would only hold devices forever.
   */
  public static Opened open(LedgerFile file, String bootId, Env env, Duration tombstoneTtl) throws IOException {
    Objects.requireNonNull(bootId, "bootId");
    var bytes = file.read();
    if (bytes.isEmpty()) {
      var durable = new DurableLedger(new ClaimLedger(env, tombstoneTtl), file, bootId, -1);
      durable.awaitDurable(0);
      LOG.info("no checkpoint at {}; starting with an empty ledger", file.location());
      return new Opened(durable, List.of(), true);
    }
    var checkpoint = CheckpointCodec.decode(bytes.get(), file.location());
    if (!checkpoint.bootId().equals(bootId)) {
      var dropped = List.copyOf(checkpoint.state().claims().values());
      LOG.warn("checkpoint {} was written during boot {}, this is boot {}: the machine rebooted and nothing"
          + " prepared survived. Discarding {} ledger entries: {}", file.location(), checkpoint.bootId(), bootId,
          dropped.size(), describe(dropped));
      var fresh = new LedgerState(Map.of(), checkpoint.state().version() + 1);
      var durable = new DurableLedger(new ClaimLedger(env, tombstoneTtl, fresh), file, bootId, -1);
      durable.awaitDurable(fresh.version());
      return new Opened(durable, dropped, false);
    }
    var state = checkpoint.state();
    return new Opened(new DurableLedger(new ClaimLedger(env, tombstoneTtl, state), file, bootId, state.version()),
        List.of(), false);
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

  /** Returns once a checkpoint covering ledger version {@code version} is durable. */
  public void awaitDurable(long version) throws IOException {
    lock.lock();
    try {
      while (durableVersion < version) {
        if (writing) {
          written.awaitUninterruptibly();
          continue;
        }
        writing = true;
        LedgerState snapshot;
        IOException failure = null;
        lock.unlock();
        try {
          snapshot = ledger.snapshot();
          try {
            file.write(CheckpointCodec.encode(snapshot, bootId));
          } catch (IOException e) {
            failure = e;
          }
        } finally {
          lock.lock();
          writing = false;
          written.signalAll();
        }
        if (failure != null) {
          throw failure;
        }
        writes++;
        durableVersion = Math.max(durableVersion, snapshot.version());
      }
    } finally {
      lock.unlock();
    }
  }

  /** Checkpoint writes (fsyncs) so far; with group commit, fewer than the changes. */
  public long writes() {
    lock.lock();
    try {
      return writes;
    } finally {
      lock.unlock();
    }
  }
}
