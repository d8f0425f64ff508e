package dev.quartermaster.store.etcd;

import dev.quartermaster.core.env.OutsideEnv;
import dev.quartermaster.store.CompactedException;
import dev.quartermaster.store.FutureRevisionException;
import dev.quartermaster.store.KeyValue;
import dev.quartermaster.store.Range;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.StoreEvent;
import dev.quartermaster.store.StoreException;
import dev.quartermaster.store.StoreLimitException;
import dev.quartermaster.store.Txn;
import dev.quartermaster.store.TxnResult;
import dev.quartermaster.store.Watch;
import dev.quartermaster.store.WatchListener;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.CompactOption;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The {@link Store} on etcd (jetcd), passing the same contract suite as SQLite against a real etcd
 * 3.5. Keys live under {@code prefix}; revisions are etcd's minus one, so an empty etcd is at
 * revision 0 as an empty store is. A transaction is one etcd transaction: compares on mod revision,
 * the puts and deletes, then a get of every key put (what was written, its create revision and
 * version), in the same transaction — so at most 64 puts fit etcd's 128 operations.
 *
 * <p>Compaction: ours at {@code c} keeps the state at {@code c} readable but not the change that
 * made it, as every store here does; etcd keeps both, so a watch from below the compacted revision
 * is told "compacted" here, before etcd is asked. etcd does not say where it was compacted: after a
 * reopen the lowest readable revision is found by a binary search of reads.
 *
 * <p>Not yet wired into {@code qm server} ({@code --store etcd://…} is issue 12's next step).
 */
@OutsideEnv("the etcd client's watch threads and reconnect pauses are I/O at the edge")
public final class EtcdStore implements Store {
  /** How often a watch still replaying its history asks etcd whether it has caught up. */
  private static final Duration PROGRESS_ASKED_EVERY = Duration.ofMillis(50);

  private static final Duration CALL = Duration.ofSeconds(10);

  /** The gRPC metadata with which etcd refuses a request at a member that has no leader. */
  static final String REQUIRE_LEADER = "hasleader";

  private static final String NO_LEADER = "no leader";

  /** etcd's revision of an empty cluster; ours starts at 0. */
  private static final long BASE = 1;

  /** etcd's default {@code --max-txn-ops}: operations in one branch of a transaction. */
  public static final int MAX_TXN_OPS = 128;

  /**
   * etcd's default {@code --max-request-bytes} (1.5 MiB); the API's 1 MiB body limit sits below it.
   */
  public static final long MAX_REQUEST_BYTES = 1_572_864;

  /** The audiences of this process's recent writes, for routed watches. */
  private final WrittenAudiences audiences = new WrittenAudiences(200_000);

  private final Client client;
  private final List<String> endpoints;
  private final String prefix;
  private final AtomicLong compacted = new AtomicLong();

  /** Whether {@link #compacted} has been learnt from etcd (at the first need, after a reopen). */
  private final AtomicBoolean compactedKnown = new AtomicBoolean();

  public EtcdStore(List<String> endpoints, String prefix) {
    this.client =
        Client.builder()
            .endpoints(endpoints.toArray(String[]::new))
            // A member cut off from the majority has no leader. Asked with this header it says so
            // at once ("etcdserver: no leader", before the request is proposed) instead of holding
            // a call until its deadline, or a watch silent for ever; and with round robin the
            // next try goes to another member (the client's default, pick-first, stayed on it).
            .header(REQUIRE_LEADER, "true")
            .loadBalancerPolicy("round_robin")
            .build();
    this.endpoints = List.copyOf(endpoints);
    this.prefix = prefix;
  }

  /**
   * The etcd version each member that answers within {@code timeout} reports, by endpoint; a member
   * that does not answer is left out (the cluster may well run without it).
   */
  public java.util.Map<String, String> memberVersions(java.time.Duration timeout) {
    var versions = new java.util.LinkedHashMap<String, String>();
    for (var endpoint : endpoints) {
      try {
        versions.put(
            endpoint,
            client
                .getMaintenanceClient()
                .statusMember(endpoint)
                .get(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
                .getVersion());
      } catch (java.util.concurrent.ExecutionException
          | java.util.concurrent.TimeoutException
          | RuntimeException e) {
        // not answering now: judged by the members that do
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    return versions;
  }

  private ByteSequence key(String k) {
    return ByteSequence.from(prefix + k, StandardCharsets.UTF_8);
  }

  private String ours(ByteSequence k) {
    return k.toString(StandardCharsets.UTF_8).substring(prefix.length());
  }

  private KeyValue kv(io.etcd.jetcd.KeyValue e) {
    return new KeyValue(
        ours(e.getKey()),
        e.getValue().getBytes(),
        e.getCreateRevision() - BASE,
        e.getModRevision() - BASE,
        e.getVersion());
  }

  /**
   * Makes {@code call} and waits for its answer, at most {@link #CALL}. A member without a leader
   * refuses before it proposes anything, so the call is made again (on the next member) until the
   * deadline; any other failure is reported as it came.
   */
  private <T> T await(Supplier<CompletableFuture<T>> call, long requested) {
    long deadline = System.nanoTime() + CALL.toNanos();
    Throwable noLeader = null;
    while (true) {
      try {
        return call.get().get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (ExecutionException e) {
        var message = String.valueOf(e.getCause().getMessage());
        if (message.contains("required revision has been compacted")) {
          throw new CompactedException(requested, compactedRevision());
        }
        if (message.contains("future revision")) {
          throw new FutureRevisionException(requested, currentRevision());
        }
        if (message.contains(NO_LEADER)) {
          noLeader = e.getCause();
          if (System.nanoTime() < deadline) {
            pauseBeforeAnotherMember();
            continue;
          }
          throw leaderless(noLeader);
        }
        throw new StoreException("etcd: " + message, e.getCause());
      } catch (TimeoutException e) {
        if (noLeader != null) {
          throw leaderless(noLeader); // the last try ran into the deadline; the others said why
        }
        throw new StoreException("etcd did not answer within " + CALL.toSeconds() + " s", e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StoreException("interrupted while waiting for etcd", e);
      }
    }
  }

  private static StoreException leaderless(Throwable cause) {
    return new StoreException(
        "etcd: no member that answered has a leader within "
            + CALL.toSeconds()
            + " s (a majority of the members is down or cut off from the others)",
        cause);
  }

  /** A moment between tries: an election takes a second or so, and every member may be asked. */
  private static void pauseBeforeAnotherMember() {
    try {
      Thread.sleep(100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreException("interrupted while waiting for etcd", e);
    }
  }

  @Override
  public Optional<KeyValue> get(String key) {
    var response = await(() -> client.getKVClient().get(key(key)), 0);
    return response.getKvs().stream().findFirst().map(this::kv);
  }

  /** A keys-only read: etcd sends the key's revisions and leaves its value out. */
  @Override
  public OptionalLong modRevision(String key) {
    var option = GetOption.builder().withKeysOnly(true).build();
    var response = await(() -> client.getKVClient().get(key(key), option), 0);
    return response.getKvs().stream().mapToLong(e -> e.getModRevision() - BASE).findFirst();
  }

  @Override
  public Range range(String keyPrefix, long revision) {
    var option =
        GetOption.builder()
            .isPrefix(true)
            .withRevision(revision == 0 ? 0 : revision + BASE)
            .build();
    var response = await(() -> client.getKVClient().get(key(keyPrefix), option), revision);
    var kvs =
        response.getKvs().stream()
            .map(this::kv)
            .sorted(Comparator.comparing(KeyValue::key))
            .toList();
    return new Range(kvs, revision == 0 ? response.getHeader().getRevision() - BASE : revision);
  }

  /** A put costs two of etcd's operations here (it is read back in the same transaction). */
  @Override
  public int writesPerTxn() {
    return MAX_TXN_OPS / 2;
  }

  @Override
  public TxnResult txn(Txn txn) {
    for (var branch : List.of(txn.onSuccess(), txn.onFailure())) {
      var seen = new java.util.HashSet<String>();
      for (var op : branch) {
        if (!seen.add(op.key())) {
          throw new IllegalArgumentException(
              "key " + op.key() + " is touched twice in one branch of a transaction");
        }
      }
    }
    requireWithinLimits(txn);
    var cmps =
        txn.compares().stream()
            .map(
                c ->
                    switch (c) {
                      case Txn.Compare.ModRevision m ->
                          new Cmp(
                              key(m.key()),
                              Cmp.Op.EQUAL,
                              CmpTarget.modRevision(
                                  m.modRevision() == 0 ? 0 : m.modRevision() + BASE));
                    })
            .toArray(Cmp[]::new);
    audiences.note(txn.onSuccess());
    audiences.note(txn.onFailure());
    var then = ops(txn.onSuccess());
    var otherwise = ops(txn.onFailure());
    TxnResponse response =
        await(() -> client.getKVClient().txn().If(cmps).Then(then).Else(otherwise).commit(), 0);
    long revision = response.getHeader().getRevision() - BASE;
    var written = new ArrayList<KeyValue>();
    response.getGetResponses().forEach(g -> g.getKvs().forEach(e -> written.add(kv(e))));
    return new TxnResult(response.isSucceeded(), revision, written);
  }

  /**
   * etcd refuses a transaction over its limits with a bare gRPC error; say which limit, by how
   * much, before sending. Each put costs two operations here (the put, and the get that reads back
   * what it wrote), so one branch holds at most 64 puts.
   */
  private void requireWithinLimits(Txn txn) {
    for (var branch : List.of(txn.onSuccess(), txn.onFailure())) {
      long puts = branch.stream().filter(Txn.Op.Put.class::isInstance).count();
      long ops = branch.size() + puts;
      if (ops > MAX_TXN_OPS) {
        throw new StoreLimitException(
            "a transaction of "
                + branch.size()
                + " writes ("
                + ops
                + " etcd operations, a put"
                + " counting twice) is over etcd's limit of "
                + MAX_TXN_OPS
                + " operations per transaction (--max-txn-ops)");
      }
    }
    if (txn.compares().size() > MAX_TXN_OPS) {
      throw new StoreLimitException(
          "a transaction with "
              + txn.compares().size()
              + " compares is over etcd's limit of "
              + MAX_TXN_OPS
              + " (--max-txn-ops)");
    }
    long bytes = 0;
    for (var op : txn.onSuccess()) {
      bytes +=
          prefix.length() + op.key().length() + (op instanceof Txn.Op.Put p ? p.value().length : 0);
    }
    if (bytes > MAX_REQUEST_BYTES) {
      throw new StoreLimitException(
          "a transaction of "
              + bytes
              + " bytes is over etcd's request limit of "
              + MAX_REQUEST_BYTES
              + " bytes (1.5 MiB, --max-request-bytes)");
    }
  }

  private Op[] ops(List<Txn.Op> ops) {
    var out = new ArrayList<Op>();
    for (var op : ops) {
      switch (op) {
        case Txn.Op.Put p ->
            out.add(Op.put(key(p.key()), ByteSequence.from(p.value()), PutOption.DEFAULT));
        case Txn.Op.Delete d -> out.add(Op.delete(key(d.key()), DeleteOption.DEFAULT));
      }
    }
    // What each put wrote (create revision, version), read inside the same transaction.
    ops.stream()
        .filter(Txn.Op.Put.class::isInstance)
        .map(Txn.Op::key)
        .distinct()
        .forEach(k -> out.add(Op.get(key(k), GetOption.DEFAULT)));
    return out.toArray(Op[]::new);
  }

  /**
   * As the unrouted watch, leaving out the changes this process wrote whose audience leaves {@code
   * route} out ({@link WrittenAudiences}); etcd still sends them, but no agent decodes them.
   */
  @Override
  public Watch watch(String keyPrefix, String route, long afterRevision, WatchListener listener) {
    return watch(
        keyPrefix,
        Optional.of(java.util.Objects.requireNonNull(route, "route")),
        afterRevision,
        listener);
  }

  @Override
  public Watch watch(String keyPrefix, long afterRevision, WatchListener listener) {
    return watch(keyPrefix, Optional.empty(), afterRevision, listener);
  }

  private Watch watch(
      String keyPrefix, Optional<String> route, long afterRevision, WatchListener listener) {
    long done = compactedRevision();
    if (afterRevision < done) {
      // The change at the compacted revision is gone (only the state after it is kept), as in every
      // store.
      listener.onCompacted(done);
      return () -> {};
    }
    var option =
        WatchOption.builder()
            .isPrefix(true)
            .withPrevKV(true)
            .withRevision(afterRevision + 1 + BASE)
            .build();
    var ended = new AtomicBoolean();
    // Caught up (WatchListener#onCaughtUp) at the revision current now: once an event at or past it
    // is delivered, or etcd's progress notification (sent only to a watcher that has replayed its
    // history) says so; a watch from at or past it has nothing to replay.
    long startedAt = currentRevision();
    var caughtUp = new AtomicBoolean(afterRevision >= startedAt);
    if (caughtUp.get()) {
      listener.onCaughtUp(afterRevision);
    }
    var watchClient = client.getWatchClient();
    var watcher =
        watchClient.watch(
            key(keyPrefix),
            option,
            io.etcd.jetcd.Watch.listener(
                response -> {
                  if (response.isProgressNotify()) {
                    long at = response.getHeader().getRevision() - BASE;
                    if (!ended.get() && at >= startedAt && caughtUp.compareAndSet(false, true)) {
                      listener.onCaughtUp(at);
                    }
                    return;
                  }
                  for (var e : response.getEvents()) {
                    if (ended.get()) {
                      return;
                    }
                    long revision = e.getKeyValue().getModRevision() - BASE;
                    if (revision > startedAt && caughtUp.compareAndSet(false, true)) {
                      listener.onCaughtUp(startedAt); // every change up to it came before this one
                    }
                    var type =
                        e.getEventType() == WatchEvent.EventType.DELETE
                            ? StoreEvent.Type.DELETE
                            : StoreEvent.Type.PUT;
                    var current = kv(e.getKeyValue());
                    var previous =
                        e.getPrevKV() == null || e.getPrevKV().getKey().isEmpty()
                            ? Optional.<KeyValue>empty()
                            : Optional.of(kv(e.getPrevKV()));
                    if (route.isPresent()) {
                      var routes =
                          type == StoreEvent.Type.DELETE
                              ? audiences.ofDelete(current.key())
                              : audiences.ofPut(current.key(), current.value());
                      if (!routes.map(r -> r.contains(route.get())).orElse(true)) {
                        continue; // this process wrote it for other routes
                      }
                    }
                    listener.onEvent(new StoreEvent(type, current, previous));
                  }
                },
                error -> {
                  if (ended.compareAndSet(false, true)) {
                    if (error instanceof io.etcd.jetcd.common.exception.CompactedException c) {
                      compacted.accumulateAndGet(c.getCompactedRevision() - BASE, Math::max);
                      listener.onCompacted(c.getCompactedRevision() - BASE);
                    } else {
                      listener.onClosed("etcd watch failed: " + error.getMessage());
                    }
                  }
                },
                () -> {
                  if (ended.compareAndSet(false, true)) {
                    listener.onClosed("etcd watch completed");
                  }
                }));
    if (!caughtUp.get()) {
      // etcd answers a progress request only on watchers that have replayed their history: ask
      // until ours has.
      Thread.ofVirtual()
          .name("etcd-watch-progress")
          .start(
              () -> {
                while (!caughtUp.get() && !ended.get()) {
                  try {
                    Thread.sleep(PROGRESS_ASKED_EVERY);
                    watchClient.requestProgress();
                  } catch (InterruptedException e) {
                    return;
                  } catch (RuntimeException e) {
                    // the client is closing, or between members: ask again, or stop with the watch
                  }
                }
              });
    }
    return () -> {
      ended.set(true);
      watcher.close();
    };
  }

  @Override
  public void compact(long revision) {
    long current = currentRevision();
    if (revision > current) {
      throw new FutureRevisionException(revision, current);
    }
    long done = compactedRevision();
    if (revision < done) {
      throw new CompactedException(revision, done);
    }
    if (revision == done) {
      return;
    }
    try {
      await(
          () ->
              client
                  .getKVClient()
                  .compact(
                      revision + BASE,
                      CompactOption.newBuilder().withCompactPhysical(true).build()),
          revision);
    } catch (CompactedException e) {
      // Another server on this etcd compacted further since we last looked: learn how far, and that
      // is enough.
      compacted.accumulateAndGet(firstReadable(), Math::max);
      return;
    }
    compacted.accumulateAndGet(revision, Math::max);
  }

  @Override
  public long currentRevision() {
    return await(() -> client.getKVClient().get(key("\u0000")), 0).getHeader().getRevision() - BASE;
  }

  @Override
  public long compactedRevision() {
    if (compactedKnown.compareAndSet(false, true)) {
      compacted.accumulateAndGet(firstReadable(), Math::max);
    }
    return compacted.get();
  }

  /**
   * etcd does not say where it was compacted: the lowest revision still readable (0 if none is
   * gone).
   */
  private long firstReadable() {
    long lo = 0;
    long hi = currentRevision();
    while (lo < hi) {
      long mid = (lo + hi) >>> 1;
      if (readable(mid)) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }

  private boolean readable(long revision) {
    try {
      client
          .getKVClient()
          .get(key("\u0000"), GetOption.builder().withRevision(revision + BASE).build())
          .get(CALL.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (ExecutionException e) {
      if (String.valueOf(e.getCause().getMessage()).contains("compacted")) {
        return false;
      }
      throw new StoreException("etcd: " + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException | InterruptedException e) {
      throw new StoreException("etcd did not answer", e);
    }
  }

  @Override
  public void close() {
    client.close();
  }
}
