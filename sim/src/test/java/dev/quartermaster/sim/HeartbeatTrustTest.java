package dev.quartermaster.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.lifecycle.NodeLifecycle;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/**
 * Issue 8, hole 8: a node posts a heartbeat dated 2099 and then goes silent. Liveness must follow
 * what the control plane saw change, so the node is NotReady once the grace period has passed after
 * its last heartbeat was seen; the naive lifecycle, trusting the reported time, keeps it Ready.
 */
class HeartbeatTrustTest {
  private static final Duration GRACE = NodeLifecycle.DEFAULT_GRACE;

  @Test
  void aHeartbeatFromTheFutureDoesNotKeepASilentNodeReady() {
    for (long seed : SimCluster.seeds(5)) {
      var notReadyAfter =
          run(seed, (c, inf) -> new NodeLifecycle(c.env(), c.api(), inf, GRACE).loop());
      assertThat(notReadyAfter)
          .as("seed %d: NotReady within a grace period and a bit", seed)
          .hasValueSatisfying(d -> assertThat(d).isBetween(GRACE, GRACE.plusSeconds(5)));
    }
  }

  @Test
  void theNaiveLifecycleTrustingTheReportedTimeIsCaught() {
    int caught = 0;
    for (long seed : SimCluster.seeds(5)) {
      if (run(seed, (c, inf) -> new NaiveNodeLifecycle(c.env(), c.api(), inf, GRACE).loop())
          .isEmpty()) {
        caught++;
      }
    }
    System.out.println(
        "heartbeat-trust: naive lifecycle kept the silent node Ready in "
            + caught
            + " of "
            + SimCluster.seeds(5).length
            + " seeds");
    assertThat(caught).isEqualTo(SimCluster.seeds(5).length);
  }

  /**
   * How long after its last heartbeat the node was marked NotReady, if it was within 10 minutes.
   */
  private Optional<Duration> run(
      long seed, BiFunction<SimCluster, Informers, ControlLoop> lifecycle) {
    var c = new SimCluster(seed, WatchFaults.staleCache());
    c.addNode("node-1", 1);
    var inf = new Informers(c.env(), c.api());
    var loop = lifecycle.apply(c, inf);
    inf.start();
    loop.start();
    // Honest heartbeats for a while, then one from 2099, then silence.
    for (int i = 0; i < 3; i++) {
      c.env().advance(Duration.ofSeconds(10));
      c.heartbeat("node-1");
    }
    c.env().advance(Duration.ofMillis(c.env().random().nextLong(10_000)));
    c.updateStatus(
        "node-1",
        n -> {
          var s = n.status();
          return n.withStatus(
              new NodeStatus(
                  s.conditions(),
                  Optional.of(Instant.parse("2099-01-01T00:00:00Z")),
                  s.bootId(),
                  s.agentVersion(),
                  s.computeDomains()));
        });
    var silentSince = c.env().nanoTime();
    boolean notReady =
        c.runUntil(
            () ->
                c.api()
                    .get(Kinds.NODE, "node-1")
                    .flatMap(n -> Condition.find(n.status().conditions(), "AgentReady"))
                    .map(x -> !x.isTrue())
                    .orElse(false),
            Duration.ofMinutes(10));
    return notReady
        ? Optional.of(Duration.ofNanos(c.env().nanoTime() - silentSince))
        : Optional.empty();
  }
}
