package dev.quartermaster.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.control.leader.FencedApiClient;
import dev.quartermaster.control.leader.LeaderConfig;
import dev.quartermaster.control.leader.LeaderElector;
import dev.quartermaster.store.ForwardingStore;
import dev.quartermaster.store.KeyValue;
import dev.quartermaster.store.Range;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.StoreException;
import dev.quartermaster.store.StoreLeases;
import dev.quartermaster.store.Txn;
import dev.quartermaster.store.TxnResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Two candidates; the leader's store access stalls past the lease; the other takes over; the old
 * one's writes fail.
 */
class LeaderElectionTest {

  /**
   * A store whose calls fail (as timed-out calls would) while stalled; watches and compaction go
   * on.
   */
  static final class StallingStore extends ForwardingStore {
    boolean stalled;

    StallingStore(Store delegate) {
      super(delegate);
    }

    private void check() {
      if (stalled) {
        throw new StoreException("store call timed out (simulated stall)");
      }
    }

    @Override
    public Optional<KeyValue> get(String key) {
      check();
      return delegate.get(key);
    }

    @Override
    public java.util.OptionalLong modRevision(String key) {
      check();
      return delegate.modRevision(key);
    }

    @Override
    public Range range(String prefix, long revision) {
      check();
      return delegate.range(prefix, revision);
    }

    @Override
    public TxnResult txn(Txn txn) {
      check();
      return delegate.txn(txn);
    }

    @Override
    public void close() {}
  }

  @Test
  void theStalledLeaderIsDeposedAndFenced() {
    for (long seed : SimCluster.seeds(20)) {
      var c = new SimCluster(seed, WatchFaults.NONE);
      var storeA = new StallingStore(c.store());
      var events = new ArrayList<String>();
      var a =
          new LeaderElector(
              new StoreLeases(storeA), c.env(), "a", LeaderConfig.DEFAULTS, callbacks("a", events));
      var b =
          new LeaderElector(
              new StoreLeases(c.store()),
              c.env(),
              "b",
              LeaderConfig.DEFAULTS,
              callbacks("b", events));
      a.start();
      c.env().advance(Duration.ofMillis(1));
      b.start();
      var overlap = new ArrayList<String>();
      probe(c, a, b, overlap);
      c.env().advance(Duration.ofSeconds(20));
      assertThat(a.isLeader()).as("seed %d", seed).isTrue();
      assertThat(b.isLeader()).isFalse();

      // a writes through its fence; read an object for a late write later.
      c.deviceClass("gpu", "gpu");
      var fencedA = new FencedApiClient(c.api(), a);
      var stale = c.api().get(Kinds.DEVICE_CLASS, "gpu").orElseThrow();

      storeA.stalled = true;
      c.env().advance(Duration.ofSeconds(11));
      assertThat(a.isLeader()).as("renew deadline passed: a stops at once").isFalse();
      assertThatThrownBy(() -> fencedA.delete(Kinds.DEVICE_CLASS, "gpu"))
          .isInstanceOfSatisfying(
              ApiException.class, e -> assertThat(e.reason()).isEqualTo(Reason.Unavailable));
      c.env().advance(Duration.ofSeconds(10));
      assertThat(b.isLeader()).as("seed %d: b took over", seed).isTrue();
      assertThat(b.epoch()).isEqualTo(a.epoch() + 1);
      // b's controllers write; a's late write, decided on the old revision, fails.
      var fencedB = new FencedApiClient(c.api(), b);
      fencedB.update(c.api().get(Kinds.DEVICE_CLASS, "gpu").orElseThrow());
      assertThatThrownBy(() -> c.api().update(stale))
          .isInstanceOfSatisfying(
              ApiException.class, e -> assertThat(e.reason()).isEqualTo(Reason.Conflict));

      storeA.stalled = false;
      c.env().advance(Duration.ofSeconds(30));
      assertThat(a.isLeader()).as("a stays deposed once its store is back").isFalse();
      assertThat(b.isLeader()).isTrue();
      assertThat(overlap).as("seed %d: never two leaders at once", seed).isEmpty();
      assertThat(events).containsSubsequence("a:start", "a:stop", "b:start");
    }
  }

  /**
   * A leader paused after its leadership check (a long GC, SIGSTOP) resumes after a newer term
   * began: its write, made through its term's fenced client, is refused by the store and nothing of
   * it lands. The naive variant, the same write without the store fence, lands under the new
   * leader.
   */
  @Test
  void aPausedLeadersWriteIsFencedInTheStoreOnceANewerTermBegan() {
    for (long seed : SimCluster.seeds(10)) {
      var c = new SimCluster(seed, WatchFaults.NONE);
      var storeA = new StallingStore(c.store());
      var terms = new java.util.HashMap<String, dev.quartermaster.control.leader.Term>();
      var a =
          new LeaderElector(
              new StoreLeases(storeA), c.env(), "a", LeaderConfig.DEFAULTS, recording("a", terms));
      var b =
          new LeaderElector(
              new StoreLeases(c.store()),
              c.env(),
              "b",
              LeaderConfig.DEFAULTS,
              recording("b", terms));
      a.start();
      c.env().advance(Duration.ofMillis(1));
      b.start();
      c.env().advance(Duration.ofSeconds(5));
      assertThat(a.isLeader()).isTrue();
      var termA = terms.get("a");
      var pausedWrites = c.api().fencedBy(termA.fenceKey(), termA.fenceRevision());
      var naive = c.api();

      storeA.stalled = true; // a is paused: it neither renews nor writes
      c.env().advance(Duration.ofSeconds(30));
      assertThat(b.isLeader()).as("seed %d: b took over", seed).isTrue();
      assertThat(terms.get("b").fenceRevision()).isGreaterThan(termA.fenceRevision());

      // a wakes up holding a write it decided while it led.
      assertThatThrownBy(() -> pausedWrites.create(deviceClass("late")))
          .isInstanceOfSatisfying(
              ApiException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(Reason.Unavailable);
                assertThat(e.getMessage()).contains("fenced").contains(termA.fenceKey());
              });
      assertThat(c.api().get(Kinds.DEVICE_CLASS, "late"))
          .as("seed %d: nothing of the fenced write landed", seed)
          .isEmpty();
      // Without the fence the same late write lands under the new leader: what the fence prevents.
      naive.create(deviceClass("late"));
      assertThat(c.api().get(Kinds.DEVICE_CLASS, "late")).isPresent();
      // b's own term writes go through.
      c.api()
          .fencedBy(terms.get("b").fenceKey(), terms.get("b").fenceRevision())
          .create(deviceClass("b-writes"));
    }
  }

  private static dev.quartermaster.api.device.DeviceClass deviceClass(String name) {
    return new dev.quartermaster.api.device.DeviceClass(
        dev.quartermaster.api.meta.ObjectMeta.named(name),
        new dev.quartermaster.api.device.DeviceClassSpec("gpu", List.of()),
        dev.quartermaster.api.device.DeviceClassStatus.EMPTY);
  }

  private static LeaderElector.Callbacks recording(
      String who, java.util.Map<String, dev.quartermaster.control.leader.Term> terms) {
    return new LeaderElector.Callbacks() {
      @Override
      public void startedLeading(dev.quartermaster.control.leader.Term term) {
        terms.put(who, term);
      }

      @Override
      public void stoppedLeading() {}
    };
  }

  @Test
  void aStoppedLeaderReleasesTheLeaseSoTheNextTakesOverWithinARetryPeriod() {
    for (long seed : SimCluster.seeds(5)) {
      var c = new SimCluster(seed, WatchFaults.NONE);
      var events = new ArrayList<String>();
      var a =
          new LeaderElector(
              new StoreLeases(c.store()),
              c.env(),
              "a",
              LeaderConfig.DEFAULTS,
              callbacks("a", events));
      var b =
          new LeaderElector(
              new StoreLeases(c.store()),
              c.env(),
              "b",
              LeaderConfig.DEFAULTS,
              callbacks("b", events));
      a.start();
      c.env().advance(Duration.ofMillis(1));
      b.start();
      c.env().advance(Duration.ofSeconds(5));
      assertThat(a.isLeader()).isTrue();
      a.stop();
      assertThat(events).containsExactly("a:start", "a:stop");
      // One retry period (2 s, up to 20% jitter) — not the 15 s lease — until b leads.
      c.env().advance(Duration.ofMillis(2_500));
      assertThat(b.isLeader()).as("seed %d: b took the released lease", seed).isTrue();
      assertThat(b.epoch()).isEqualTo(a.epoch() + 1);
      assertThat(events).containsExactly("a:start", "a:stop", "b:start");
    }
  }

  private static void probe(SimCluster c, LeaderElector a, LeaderElector b, List<String> overlap) {
    c.env()
        .schedule(
            Duration.ofMillis(100),
            () -> {
              if (a.isLeader() && b.isLeader()) {
                overlap.add("both lead at " + c.env().now());
              }
              probe(c, a, b, overlap);
            });
  }

  private static LeaderElector.Callbacks callbacks(String who, List<String> events) {
    return new LeaderElector.Callbacks() {
      @Override
      public void startedLeading(dev.quartermaster.control.leader.Term term) {
        events.add(who + ":start");
      }

      @Override
      public void stoppedLeading() {
        events.add(who + ":stop");
      }
    };
  }
}
