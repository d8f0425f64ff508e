package dev.quartermaster.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceClassSpec;
import dev.quartermaster.api.device.DeviceClassStatus;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.control.leader.FencedApiClient;
import dev.quartermaster.control.leader.LeaderConfig;
import dev.quartermaster.control.leader.LeaderElector;
import dev.quartermaster.control.leader.Term;
import dev.quartermaster.control.leader.WriteReadiness;
import dev.quartermaster.sim.world.StaleTermCallbacks;
import dev.quartermaster.store.StoreLeases;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Issue 43, items 1 and 2: a leader paused past its renew deadline but not past its lease (SIGSTOP
 * for 13 s) wins a new term when it resumes, since nobody took the lease; its controllers must
 * follow it onto the new term's token. And a restarted embedded server takes over the lease its
 * killed predecessor left at once, since the store's file lock proves that predecessor is gone.
 */
class PausedLeaderElectionTest {

  /** Controllers stand-in: begins each term on a fenced client, as the control plane does. */
  private static final class Controllers implements LeaderElector.Callbacks {
    final FencedApiClient writes;
    final List<String> seen = new ArrayList<>();

    Controllers(FencedApiClient writes) {
      this.writes = writes;
    }

    @Override
    public void startedLeading(Term term) {
      writes.beginTerm(term);
      seen.add("start@" + term.epoch());
    }

    @Override
    public void stoppedLeading() {
      seen.add("stop");
    }
  }

  private record Paused(
      LeaderElector elector, Controllers controllers, SimCluster cluster, ProcessEnv process) {}

  private static Paused pausedFor13Seconds(long seed, boolean naive) {
    var c = new SimCluster(seed, WatchFaults.NONE);
    var process = new ProcessEnv(c.env());
    var elector = new AtomicReference<LeaderElector>();
    var fenced = new FencedApiClient(c.api(), () -> elector.get().isLeader());
    var controllers = new Controllers(fenced);
    elector.set(
        new LeaderElector(
            new StoreLeases(c.store()),
            process,
            "a",
            LeaderConfig.DEFAULTS,
            naive ? new StaleTermCallbacks(controllers) : controllers));
    elector.get().start();
    c.env().advance(Duration.ofSeconds(5));
    assertThat(elector.get().isLeader()).isTrue();
    fenced.create(deviceClass("before"));

    process.pause(); // kill -STOP: past the 10 s renew deadline, within the 15 s lease
    c.env().advance(Duration.ofSeconds(13));
    process.resume(); // kill -CONT
    c.env().advance(Duration.ofSeconds(5));
    return new Paused(elector.get(), controllers, c, process);
  }

  @Test
  void aLeaderPausedPastItsDeadlineStartsItsControllersAgainUnderTheNewTerm() {
    for (long seed : SimCluster.seeds(10)) {
      var p = pausedFor13Seconds(seed, false);
      assertThat(p.elector().isLeader()).as("seed %d: it won its own lease again", seed).isTrue();
      assertThat(p.controllers().seen)
          .as("seed %d: the controllers stopped and started under the next epoch", seed)
          .containsExactly("start@1", "stop", "start@2");
      p.controllers().writes.create(deviceClass("after"));
      assertThat(p.cluster().api().get(dev.quartermaster.api.meta.Kinds.DEVICE_CLASS, "after"))
          .isPresent();
      var readiness = readiness(p);
      assertThat(readiness.ready()).as(readiness.message()).isTrue();
      assertThat(readiness.message()).startsWith("the controllers lead: epoch 2");
    }
  }

  /** The naive leader of the report: renews happily while every controller write is refused. */
  @Test
  void theNaiveLeaderKeepsTheEndedTermAndReadinessSaysSo() {
    var p = pausedFor13Seconds(1, true);
    assertThat(p.elector().isLeader()).isTrue();
    assertThat(p.controllers().seen).containsExactly("start@1");
    assertThatThrownBy(() -> p.controllers().writes.create(deviceClass("after")))
        .isInstanceOf(ApiException.class)
        .hasMessageContaining("fenced: the leader's term that began at revision");
    var readiness = readiness(p);
    assertThat(readiness.ready()).isFalse();
    assertThat(readiness.message())
        .isEqualTo(
            "the controllers cannot write: they write under epoch 1's token while this process"
                + " leads epoch 2");
  }

  /**
   * {@code kill -9} of the only server on an embedded store, then a new process: it takes the lease
   * its predecessor left at once, not after the lease expires; a store others may share (etcd)
   * waits the lease out.
   */
  @Test
  void anEmbeddedStoresNewServerTakesADeadServersLeaseAtOnce() {
    for (boolean exclusive : new boolean[] {true, false}) {
      var c = new SimCluster(7, WatchFaults.NONE);
      var dead = new ProcessEnv(c.env());
      var old =
          new LeaderElector(
              new StoreLeases(c.store()), dead, "qm-100", LeaderConfig.DEFAULTS, new Nothing());
      old.start();
      c.env().advance(Duration.ofSeconds(3));
      assertThat(old.isLeader()).isTrue();
      dead.pause(); // kill -9: it never runs again, and never releases its lease

      var started = new ArrayList<Term>();
      var fresh =
          new LeaderElector(
              exclusive ? StoreLeases.ofExclusiveStore(c.store()) : new StoreLeases(c.store()),
              c.env(),
              "qm-200",
              LeaderConfig.DEFAULTS,
              new Nothing() {
                @Override
                public void startedLeading(Term term) {
                  started.add(term);
                }
              });
      fresh.start();
      c.env().advance(Duration.ofMillis(10));
      if (exclusive) {
        assertThat(fresh.isLeader()).as("took over at once").isTrue();
        assertThat(started).extracting(Term::epoch).containsExactly(2L);
      } else {
        assertThat(fresh.isLeader()).as("waits for the lease to expire").isFalse();
        c.env().advance(Duration.ofSeconds(20));
        assertThat(fresh.isLeader()).isTrue();
      }
    }
  }

  private static class Nothing implements LeaderElector.Callbacks {
    @Override
    public void startedLeading(Term term) {}

    @Override
    public void stoppedLeading() {}
  }

  private static WriteReadiness readiness(Paused p) {
    return WriteReadiness.judge(
        p.elector().standing(),
        p.controllers().writes.term(),
        p.controllers().writes.fencedThisTerm());
  }

  private static DeviceClass deviceClass(String name) {
    return new DeviceClass(
        ObjectMeta.named(name), new DeviceClassSpec("gpu", List.of()), DeviceClassStatus.EMPTY);
  }
}
