package dev.quartermaster.control.leader;

import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.env.Env.Cancellable;
import dev.quartermaster.core.lease.LeaseSlot;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader election through one key of a {@link LeaseSlot}, compare-and-set on its revision.
 *
 * <p>Every {@code retryPeriod} each candidate reads the lease. The holder renews it; another
 * candidate takes it over only after the record has not changed for a whole {@code leaseDuration}
 * as timed by its <em>own</em> clock from when it last saw a change (so clocks need not agree, only
 * run at similar rates). Taking over raises the fencing epoch.
 *
 * <p>Leadership ends locally at once when no renewal has succeeded for {@code renewDeadline},
 * counted from the <em>start</em> of the last successful renewal: {@link #isLeader} reads the clock
 * on every call, so a leader whose store access hangs stops writing (through {@link
 * FencedApiClient}) without waiting for its own loop to notice. Since the deadline is shorter than
 * the lease, the old leader has stopped before anyone else can start. No etcd lease is involved: an
 * etcd lease's TTL restarts when etcd elects a new leader (a 5 s lease was seen to last ~9.5 s),
 * while these durations are measured by each candidate's own clock from what it saw.
 *
 * <p>A new term also rewrites the fence key ({@code <key>/term}) before its controllers start; the
 * revision of that write is the term's fencing token ({@link Term}). Writes made through a client
 * fenced by it compare the key in their own transaction, so even a leader paused past every
 * deadline (a long GC, SIGSTOP) cannot land a write once a newer term has begun.
 */
public final class LeaderElector implements Leadership {

  /** What to run when leadership starts and ends. */
  public interface Callbacks {
    void startedLeading(Term term);

    void stoppedLeading();

    /**
     * This process won a new term while it still led the last one: its lease outlived the renew
     * deadline (the process was paused past it, by SIGSTOP, a long GC or a frozen VM, or its store
     * did not answer) and nobody took it over meanwhile. Every write fenced by the ended term now
     * fails, so the controllers stop and start again under the new term's token.
     *
     * @param silent how long no renewal had succeeded when the new term began
     */
    default void termEnded(Term ended, Term next, Duration silent) {
      stoppedLeading();
      startedLeading(next);
    }
  }

  /**
   * What this candidate knows of the election, for health and metrics.
   *
   * @param holds whether it holds the lease as far as it knows (its renewals may have stopped: see
   *     {@code sinceRenewal})
   * @param term the term it won last, if any
   * @param sinceRenewal how long ago its last successful renewal began
   * @param renewDeadline how long it may lead without one
   */
  public record Standing(
      boolean holds, Optional<Term> term, Duration sinceRenewal, Duration renewDeadline) {}

  private static final Logger LOG = LoggerFactory.getLogger(LeaderElector.class);

  private final LeaseSlot leases;
  private final Env env;
  private final String identity;
  private final LeaderConfig config;
  private final Callbacks callbacks;
  private final Object lock = new Object();
  private long observedModRevision = -1;
  private long observedAtNanos;
  private boolean leading;
  private long lastRenewStartNanos;
  private long epoch;
  private long fenceRevision;

  /** Whether the lease, when last read, named someone else. */
  private boolean observedHolderIsOther;

  private boolean stopped;
  private Optional<Cancellable> next = Optional.empty();

  public LeaderElector(
      LeaseSlot leases, Env env, String identity, LeaderConfig config, Callbacks callbacks) {
    this.leases = Objects.requireNonNull(leases, "leases");
    this.env = Objects.requireNonNull(env, "env");
    this.identity = Objects.requireNonNull(identity, "identity");
    this.config = Objects.requireNonNull(config, "config");
    this.callbacks = Objects.requireNonNull(callbacks, "callbacks");
  }

  /** Begins trying, at once and then every retry period. */
  public void start() {
    env.execute(this::tick);
  }

  /**
   * Stops trying; if leading, stops leading and then releases the lease, so that another instance
   * (or this one, restarted) takes over at once instead of waiting for it to expire.
   */
  public void stop() {
    boolean wasLeading;
    synchronized (lock) {
      stopped = true;
      next.ifPresent(Cancellable::cancel);
      wasLeading = leading;
      leading = false;
    }
    if (wasLeading) {
      callbacks.stoppedLeading(); // our controllers stop writing before anyone else may start
      release();
    }
  }

  /** Marks the lease free (no holder), only if it is still ours: never clobbers a newer holder. */
  private void release() {
    try {
      var current = leases.read(config.key());
      if (current.isEmpty()) {
        return;
      }
      var record = LeaseRecord.decode(current.get().value());
      if (record.holder().equals(identity)) {
        var free = new LeaseRecord("", env.now().toEpochMilli(), 0, record.epoch());
        leases.compareAndSet(config.key(), current.get().revision(), free.encode());
        LOG.info("{}: released lease {} (epoch {})", identity, config.key(), record.epoch());
      }
    } catch (RuntimeException e) {
      LOG.warn(
          "{}: lease {} not released, it will expire: {}", identity, config.key(), e.toString());
    }
  }

  @Override
  public boolean isLeader() {
    synchronized (lock) {
      return leading && env.nanoTime() - lastRenewStartNanos < config.renewDeadline().toNanos();
    }
  }

  /** The fencing epoch of the current (or last) term. */
  public long epoch() {
    synchronized (lock) {
      return epoch;
    }
  }

  public String identity() {
    return identity;
  }

  /** Where this candidate stands now; reads no store. */
  public Standing standing() {
    synchronized (lock) {
      return new Standing(
          leading,
          // Epochs start at 1: 0 means no term was ever won here.
          epoch == 0 ? Optional.empty() : Optional.of(new Term(epoch, fenceKey(), fenceRevision)),
          Duration.ofNanos(epoch == 0 ? 0 : env.nanoTime() - lastRenewStartNanos),
          config.renewDeadline());
    }
  }

  private void tick() {
    synchronized (lock) {
      if (stopped) {
        return;
      }
    }
    long started = env.nanoTime();
    Optional<Term> won = Optional.empty();
    try {
      won = tryAcquireOrRenew(started);
    } catch (RuntimeException e) {
      LOG.warn("{}: lease {} not renewed: {}", identity, config.key(), e.toString());
    }
    boolean becameLeader = false;
    boolean lost = false;
    Optional<Term> ended = Optional.empty();
    long silentNanos = 0;
    synchronized (lock) {
      if (stopped) {
        return;
      }
      if (won.isPresent()) {
        if (leading && won.get().epoch() != epoch) {
          // Renewed too late to keep the term: a new one began under our controllers' feet.
          ended = Optional.of(new Term(epoch, fenceKey(), fenceRevision));
          silentNanos = started - lastRenewStartNanos;
        }
        lastRenewStartNanos = started;
        becameLeader = !leading;
        leading = true;
        epoch = won.get().epoch();
        fenceRevision = won.get().fenceRevision();
      } else if (leading
          && (env.nanoTime() - lastRenewStartNanos >= config.renewDeadline().toNanos()
              || observedHolderIsOther)) {
        leading = false;
        lost = true;
      }
      next = Optional.of(env.schedule(jittered(), this::tick));
    }
    if (becameLeader) {
      LOG.info("{}: leading (epoch {})", identity, won.orElseThrow().epoch());
      callbacks.startedLeading(won.orElseThrow());
    }
    if (ended.isPresent()) {
      var next = won.orElseThrow();
      LOG.warn(
          "{}: the term of epoch {} ended: no lease renewal for {} ms, past the {} ms renew"
              + " deadline (this process was paused, or its store did not answer); the lease was"
              + " still free, so the controllers restart under epoch {} (writes fenced at revision"
              + " {} of {})",
          identity,
          ended.get().epoch(),
          silentNanos / 1_000_000,
          config.renewDeadline().toMillis(),
          next.epoch(),
          next.fenceRevision(),
          next.fenceKey());
      callbacks.termEnded(ended.get(), next, Duration.ofNanos(silentNanos));
    }
    if (lost) {
      LOG.warn("{}: lost leadership", identity);
      callbacks.stoppedLeading();
    }
  }

  private String fenceKey() {
    return config.key() + "/term";
  }

  /** The term if we hold the lease after this attempt. */
  private Optional<Term> tryAcquireOrRenew(long nowNanos) {
    Optional<LeaseSlot.Versioned> current = leases.read(config.key());
    long leaseMillis = config.leaseDuration().toMillis();
    long nowMillis = env.now().toEpochMilli();
    if (current.isEmpty()) {
      var fresh = new LeaseRecord(identity, nowMillis, leaseMillis, 1);
      return write(0, fresh).flatMap(this::beginTerm);
    }
    var kv = current.get();
    var record = LeaseRecord.decode(kv.value());
    synchronized (lock) {
      if (kv.revision() != observedModRevision) {
        observedModRevision = kv.revision();
        observedAtNanos = nowNanos;
      }
      observedHolderIsOther = !record.holder().equals(identity);
    }
    if (record.holder().equals(identity) && isLeaderAt(nowNanos)) {
      long fence;
      synchronized (lock) {
        fence = fenceRevision;
      }
      return write(kv.revision(), new LeaseRecord(identity, nowMillis, leaseMillis, record.epoch()))
          .map(e -> new Term(e, fenceKey(), fence));
    }
    boolean expired;
    synchronized (lock) {
      expired = nowNanos - observedAtNanos >= config.leaseDuration().toNanos();
    }
    if (!record.holder().equals(identity) && !record.holder().isEmpty() && !expired) {
      if (!leases.exclusive()) {
        return Optional.empty();
      }
      LOG.info(
          "{}: taking the lease from {} at once: the store is this process's alone (its file"
              + " lock), so {} has ended",
          identity,
          record.holder(),
          record.holder());
    }
    // Released, expired, or ours from an earlier term (a restart, or a deadline we missed): a new
    // term.
    return write(
            kv.revision(), new LeaseRecord(identity, nowMillis, leaseMillis, record.epoch() + 1))
        .flatMap(this::beginTerm);
  }

  /**
   * Moves the fence key to {@code epoch}, after the lease is ours for that epoch and before any
   * controller runs: from its revision on, every earlier term's fenced write fails. Empty if
   * another candidate moved it first (a newer term than ours began: we do not lead).
   */
  private Optional<Term> beginTerm(long newEpoch) {
    var current = leases.read(fenceKey());
    long expected = current.map(LeaseSlot.Versioned::revision).orElse(0L);
    var written =
        leases.compareAndSet(
            fenceKey(),
            expected,
            Long.toString(newEpoch).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    return written.isPresent()
        ? Optional.of(new Term(newEpoch, fenceKey(), written.getAsLong()))
        : Optional.empty();
  }

  private boolean isLeaderAt(long nowNanos) {
    synchronized (lock) {
      return leading && nowNanos - lastRenewStartNanos < config.renewDeadline().toNanos();
    }
  }

  private Optional<Long> write(long expectedModRevision, LeaseRecord record) {
    var written = leases.compareAndSet(config.key(), expectedModRevision, record.encode());
    if (written.isEmpty()) {
      return Optional.empty();
    }
    synchronized (lock) {
      observedModRevision = written.getAsLong();
      observedHolderIsOther = false;
    }
    return Optional.of(record.epoch());
  }

  private Duration jittered() {
    // Up to 20% later, so candidates do not retry in lockstep.
    long base = config.retryPeriod().toNanos();
    return Duration.ofNanos(base + env.random().nextLong(base / 5 + 1));
  }
}
