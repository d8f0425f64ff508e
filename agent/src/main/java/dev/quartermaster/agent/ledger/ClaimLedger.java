package dev.quartermaster.agent.ledger;

import dev.quartermaster.agent.ledger.ClaimState.PrepareAborted;
import dev.quartermaster.agent.ledger.ClaimState.PrepareCompleted;
import dev.quartermaster.agent.ledger.ClaimState.PrepareStarted;
import dev.quartermaster.api.device.use.DeviceUse;
import dev.quartermaster.api.device.use.Holders;
import dev.quartermaster.core.env.Env;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The node-local truth of which claim holds which device: a pure state machine over {@link
 * ClaimState}, keyed by claim uid. It does no I/O. Each call returns what it decided and whether
 * the ledger changed; the caller persists {@link #snapshot()} before it tells anyone (I6), and
 * derives the node's side effects from the snapshot ({@link NodeEffects#of}).
 *
 * <p>The rules (NVIDIA's plugin learned each the hard way; see reference/kubelet-dra.md §3):
 *
 * <ul>
 *   <li>A prepare of a completed claim returns the same devices; this is checked before anything is
 *       written, so a repeated prepare can never move a completed claim back to started.
 *   <li>A prepare fails retryably, naming the holder, while any of its devices is held by another
 *       claim that is started or completed, or shares a counter with devices such claims hold
 *       beyond what there is ({@link DeviceUse}; I1). A prepare for a new claim that arrives before
 *       the unprepare of the old one is therefore refused, not merged.
 *   <li>Unprepare needs nothing but the ledger, is idempotent and succeeds for unknown claims. It
 *       always leaves a tombstone (for unknown claims too, since the prepare it overtook may still
 *       be on its way) ({@code PrepareAborted}) for {@link #tombstoneTtl()}, longer than any
 *       caller's retry window, so a late prepare retry cannot resurrect the claim.
 *   <li>Expired tombstones are pruned by Env time.
 * </ul>
 *
 * <p>Thread-safe: every method is atomic with respect to the others.
 */
public final class ClaimLedger {

  /** Twice the kubelet's 45 s per-call timeout, like NVIDIA's PrepareAbortedClaimEntryTTL. */
  public static final Duration DEFAULT_TOMBSTONE_TTL = Duration.ofSeconds(90);

  private final Env env;
  private final Duration tombstoneTtl;
  private final LedgerChange.Listener listener;
  private final TreeMap<String, ClaimState> claims = new TreeMap<>();

  /** device → uid of the started or completed entry that holds it; the I1 index. */
  private final Map<String, String> holders = new HashMap<>();

  /** What this node's devices consume while held: what a prepare is judged by (I1). */
  private DeviceUse use = DeviceUse.WHOLE_DEVICES;

  /**
   * claim name → the uids of the entries (tombstones included) that carry it, in order: {@link
   * #holdsName} and {@link #entriesNamed} without a scan.
   */
  private final Map<String, TreeSet<String>> names = new HashMap<>();

  /**
   * No tombstone expires before this (none: {@link Instant#MAX}): every prepare prunes, and a scan
   * of a ledger holding the last minute and a half's tombstones was most of a prepare's own work.
   */
  private Instant nextExpiry = Instant.MAX;

  private long version;

  /** An empty ledger. */
  public ClaimLedger(Env env, Duration tombstoneTtl) {
    this(env, tombstoneTtl, LedgerState.EMPTY);
  }

  /**
   * A ledger starting from {@code state} (as loaded from a checkpoint). A state in which two
   * entries hold one device is refused: that is exactly what the ledger exists to prevent.
   */
  public ClaimLedger(Env env, Duration tombstoneTtl, LedgerState state) {
    this(env, tombstoneTtl, state, LedgerChange.Listener.NONE);
  }

  /**
   * As {@link #ClaimLedger(Env, Duration, LedgerState)}, telling {@code listener} of every change
   * (under this ledger's lock, in version order), which is how the durable journal learns what to
   * append without rewriting the whole state.
   */
  public ClaimLedger(
      Env env, Duration tombstoneTtl, LedgerState state, LedgerChange.Listener listener) {
    this.env = Objects.requireNonNull(env, "env");
    this.listener = Objects.requireNonNull(listener, "listener");
    this.tombstoneTtl = Objects.requireNonNull(tombstoneTtl, "tombstoneTtl");
    if (tombstoneTtl.isNegative() || tombstoneTtl.isZero()) {
      throw new IllegalArgumentException("tombstone TTL must be positive: " + tombstoneTtl);
    }
    state
        .doubleHeld()
        .ifPresent(
            problem -> {
              throw new IllegalArgumentException(
                  "refusing a ledger state that breaks I1: " + problem);
            });
    state.claims().values().forEach(this::index);
    this.version = state.version();
  }

  public Duration tombstoneTtl() {
    return tombstoneTtl;
  }

  /** The ledger as it is now. */
  public synchronized LedgerState snapshot() {
    return new LedgerState(claims, version);
  }

  /**
   * Whether any entry is for a claim called {@code name} (any uid): a look, without a snapshot's
   * copy.
   */
  public synchronized boolean holdsName(String name) {
    // Asked by each agent for every claim event of the cluster: an index, not a scan of the
    // entries.
    return names.containsKey(name);
  }

  /** The entry for {@code uid}, if any: a look, without a snapshot's copy. */
  public synchronized Optional<ClaimState> entry(String uid) {
    return Optional.ofNullable(claims.get(uid));
  }

  /**
   * The entries for claims called {@code name} (any uid), in uid order: a look, without a
   * snapshot's copy.
   */
  public synchronized List<ClaimState> entriesNamed(String name) {
    var uids = names.get(name);
    return uids == null ? List.of() : uids.stream().map(claims::get).toList();
  }

  /** The current version; grows by one with every change. */
  public synchronized long version() {
    return version;
  }

  /**
   * From now on, judges prepares by {@code use}: this node's devices as its slice publishes them
   * (whole devices until a device declares shared counters).
   */
  public synchronized void judgeBy(DeviceUse use) {
    this.use = Objects.requireNonNull(use, "use");
  }

  /** Begins (or repeats) a prepare. See the class comment for the rules. */
  public synchronized PrepareResult prepare(PrepareRequest request) {
    pruneExpiredLocked();
    var uid = request.claim().uid();
    var existing = claims.get(uid);
    switch (existing) {
      case PrepareCompleted done -> {
        // Checked before anything is written: a repeated prepare must not regress a completed
        // claim.
        return sameDevices(done, request)
            ? new PrepareResult.AlreadyPrepared(done)
            : new PrepareResult.Mismatch(done.claim(), done.devices(), request.devices());
      }
      case PrepareAborted tombstone -> {
        return new PrepareResult.Aborted(
            tombstone.claim(), tombstone.since(), tombstone.expiresAt());
      }
      case PrepareStarted started -> {
        // A retry of an interrupted prepare: its node-side work is idempotent, so let it redo it.
        return sameDevices(started, request)
            ? new PrepareResult.Started(started, false)
            : new PrepareResult.Mismatch(started.claim(), started.devices(), request.devices());
      }
      case null -> {
        // fall through to the exclusivity check
      }
    }
    var held = Holders.of(holders);
    for (var device : request.devices()) {
      var clash = use.clash(device, uid, held);
      if (clash.isPresent()) {
        var holder = claims.get(clash.get().heldBy());
        return new PrepareResult.Held(
            clash.get().heldDevice(), holder.claim(), holder, clash.get().over());
      }
    }
    // A part and its whole known only by name (a replica held from before a mode change, the GPU
    // offered whole again): the slice no longer says they are one GPU, the names do.
    var with = new HashMap<>(holders);
    request.devices().forEach(d -> with.putIfAbsent(d, uid));
    var parted = use.partWithWhole(with);
    if (parted.isPresent()
        && (parted.get().holder().equals(uid) || parted.get().heldBy().equals(uid))) {
      var c = parted.get();
      var other = c.holder().equals(uid) ? c.heldBy() : c.holder();
      var device = c.holder().equals(uid) ? c.heldDevice() : c.device();
      var holder = claims.get(other);
      return new PrepareResult.Held(device, holder.claim(), holder);
    }
    var started =
        new PrepareStarted(request.claim(), request.devices(), request.computeDomain(), env.now());
    put(started);
    return new PrepareResult.Started(started, true);
  }

  /** Marks a started prepare completed, recording the CDI names its containers get. */
  public synchronized CompleteResult complete(String uid, List<String> cdiDevices) {
    var existing = claims.get(uid);
    return switch (existing) {
      case PrepareStarted started -> {
        var done =
            new PrepareCompleted(
                started.claim(), started.devices(), started.computeDomain(), env.now(), cdiDevices);
        put(done);
        yield new CompleteResult.Completed(done, true);
      }
      case PrepareCompleted done -> new CompleteResult.Completed(done, false);
      case PrepareAborted tombstone -> new CompleteResult.Aborted(tombstone);
      case null -> new CompleteResult.NotStarted(uid);
    };
  }

  /**
   * Releases a claim's devices, leaving a tombstone. Idempotent, and fine for claims never seen:
   * those get a tombstone too, because the prepare that this unprepare overtook may still arrive.
   */
  public synchronized UnprepareResult unprepare(ClaimRef claim) {
    var existing = claims.get(claim.uid());
    return switch (existing) {
      case PrepareStarted s -> release(s);
      case PrepareCompleted c -> release(c);
      case PrepareAborted tombstone -> new UnprepareResult.AlreadyUnprepared(tombstone);
      case null -> {
        var now = env.now();
        var tombstone =
            new PrepareAborted(claim, List.of(), Optional.empty(), now, now.plus(tombstoneTtl));
        put(tombstone);
        yield new UnprepareResult.NeverPrepared(tombstone);
      }
    };
  }

  /** Drops tombstones whose TTL has passed; returns how many (a change to persist if > 0). */
  public synchronized int pruneExpired() {
    return pruneExpiredLocked();
  }

  private UnprepareResult release(ClaimState previous) {
    var now = env.now();
    var tombstone =
        new PrepareAborted(
            previous.claim(),
            previous.devices(),
            previous.computeDomain(),
            now,
            now.plus(tombstoneTtl));
    put(tombstone);
    return new UnprepareResult.Released(previous, tombstone);
  }

  private int pruneExpiredLocked() {
    Instant now = env.now();
    if (now.isBefore(nextExpiry)) {
      return 0;
    }
    // One pass: the tombstones that expired, and the earliest expiry of those left.
    var expired = new ArrayList<String>();
    nextExpiry = Instant.MAX;
    for (var c : claims.values()) {
      if (c instanceof PrepareAborted a) {
        if (a.expiresAt().isAfter(now)) {
          nextExpiry = a.expiresAt().isBefore(nextExpiry) ? a.expiresAt() : nextExpiry;
        } else {
          expired.add(c.claim().uid());
        }
      }
    }
    for (var uid : expired) {
      var gone = claims.remove(uid); // tombstones hold no devices: the I1 index is unaffected
      names.computeIfPresent(
          gone.claim().name(), (n, uids) -> uids.remove(uid) && uids.isEmpty() ? null : uids);
    }
    if (!expired.isEmpty()) {
      version++;
      listener.changed(new LedgerChange.Removed(version, expired));
    }
    return expired.size();
  }

  private void put(ClaimState next) {
    index(next);
    version++;
    listener.changed(new LedgerChange.Put(version, next));
  }

  private void index(ClaimState next) {
    var uid = next.claim().uid();
    var previous = claims.put(uid, next);
    if (previous == null) {
      names
          .computeIfAbsent(next.claim().name(), n -> new TreeSet<>())
          .add(uid); // a uid keeps its name
    }
    if (previous != null && previous.holdsDevices()) {
      previous.devices().forEach(d -> holders.remove(d, uid));
    }
    if (next.holdsDevices()) {
      next.devices().forEach(d -> holders.put(d, uid));
    }
    if (next instanceof PrepareAborted a && a.expiresAt().isBefore(nextExpiry)) {
      nextExpiry = a.expiresAt();
    }
  }

  private static boolean sameDevices(ClaimState entry, PrepareRequest request) {
    return entry.devices().size() == request.devices().size()
        && entry.devices().containsAll(request.devices());
  }
}
