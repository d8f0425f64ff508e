package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.tasks.TaskSync;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.domain.ComputeDomain;
import dev.quartermaster.api.domain.DomainConditions;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.DomainDaemon;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.sim.world.DomainChurn;
import dev.quartermaster.sim.world.DomainPromises;
import java.io.StringWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Seed 1 end to end with real processes: {@code qm up --nodes 2} in a child JVM (store, API,
 * controllers, two agents, each running {@code qm domain-daemon} processes as their ledgers say),
 * {@code qm apply -f examples/domain-job.yaml}, then on one node of the running job a worker is
 * replaced 100 times in every order {@link DomainChurn} forces, with the job's own worker there
 * deleted and re-made every fifth round. Every change of every Node, claim and task is recorded
 * from watches and judged in revision order by {@link DomainPromises} (the same judge the
 * simulation's naive agent fails). Then the domain daemon of the other node is killed with SIGKILL
 * under its running worker: the agent starts it again, the domain's status loses and regains
 * readiness, and the worker is told by a condition while it is down, and is not stopped.
 */
@Timeout(600)
class DomainUpTest {
  static final Duration BOUND = Duration.ofSeconds(90);
  static final String DOMAIN = "nvlink-job";
  static final int ROUNDS = Integer.getInteger("qm.domain.rounds", 100);

  @Test
  void theDomainJobKeepsItsDomainThroughAHundredReplacementsAndADaemonKilled() throws Exception {
    try (var up = UpProcess.start("qmd", "--nodes", "2")) {
      var api = up.api();
      var changes = new ArrayList<WatchedChange>();
      var watches = new ArrayList<WatchHandle>();
      long from = api.list(Kinds.NODE).revision();
      for (var kind :
          List.<Kind<?>>of(Kinds.NODE, Kinds.RESOURCE_CLAIM, Kinds.TASK, Kinds.COMPUTE_DOMAIN)) {
        watches.add(WatchedChange.record(api, kind, from, changes));
      }

      var t0 = Instant.now();
      var out = new StringWriter();
      assertThat(up.cli(out, "apply", "-f", "examples/domain-job.yaml"))
          .as(out.toString())
          .isZero();
      assertThat(out.toString().lines().toList())
          .as(out.toString())
          .containsExactly("computedomain/nvlink-job created", "workload/domain-job created");
      up.await(
          "both workers Running, domain Ready 2/2",
          BOUND,
          () ->
              workers(api).size() == 2
                  && workers(api).stream().allMatch(t -> t.status().phase() == TaskPhase.Running)
                  && domainReady(api));
      phase("apply -> 2 workers running, domain Ready 2/2", t0);
      var nodes = workers(api).stream().map(t -> t.spec().node().orElseThrow()).sorted().toList();
      assertThat(nodes).containsExactly("node-1", "node-2");
      for (var node : nodes) {
        var daemon = daemon(api, node).orElseThrow();
        assertThat(daemon.ready()).isTrue();
        assertThat(ProcessHandle.of(daemon.pid().orElseThrow()).map(ProcessHandle::isAlive))
            .as(node + "'s daemon process")
            .contains(true);
      }

      // Seed 1: a hundred replacements on node-1, in every order the test can force.
      var t1 = Instant.now();
      var driver =
          new DomainChurn.Driver() {
            @Override
            public ApiClient api() {
              return api;
            }

            @Override
            public void await(String what, BooleanSupplier done) {
              try {
                var start = Instant.now();
                up.await(what, BOUND, done::getAsBoolean);
                var took = Duration.between(start, Instant.now());
                if (took.toMillis() > 1500) {
                  System.out.println("slow: " + what + " took " + took.toMillis() + " ms");
                }
              } catch (Exception e) {
                throw new AssertionError(e);
              }
            }
          };
      var last =
          new DomainChurn(driver, DOMAIN, "node-1", List.of("sleep", "3600"))
              .run(ROUNDS, "domain-job");
      up.await(
          "the job's workers Running again",
          BOUND,
          () ->
              workers(api).size() == 2
                  && workers(api).stream().allMatch(t -> t.status().phase() == TaskPhase.Running)
                  && domainReady(api));
      phase(ROUNDS + " replacements on node-1", t1);

      // The daemon of node-2 killed under its running worker.
      var t2 = Instant.now();
      var victim =
          workers(api).stream()
              .filter(t -> t.spec().node().equals(Optional.of("node-2")))
              .findFirst()
              .orElseThrow();
      var before = daemon(api, "node-2").orElseThrow();
      long killedAt = api.list(Kinds.NODE).revision();
      ProcessHandle.of(before.pid().orElseThrow()).orElseThrow().destroyForcibly();
      up.await(
          "node-2's daemon started again (new pid) and Ready",
          BOUND,
          () ->
              daemon(api, "node-2")
                      .filter(d -> d.ready() && !d.pid().equals(before.pid()) && d.restarts() >= 1)
                      .isPresent()
                  && domainReady(api));
      up.await(
          "the worker told the daemon is back",
          BOUND,
          () ->
              api.get(Kinds.TASK, victim.metadata().name())
                  .flatMap(t -> Condition.find(t.status().conditions(), TaskSync.DOMAIN_READY))
                  .map(Condition::isTrue)
                  .orElse(false));
      phase("daemon killed -> restarted, Ready again", t2);

      watches.forEach(WatchHandle::close);
      List<WatchedChange> seen;
      synchronized (changes) {
        seen = new ArrayList<>(changes);
      }
      seen.sort(Comparator.comparingLong(WatchedChange::revision));

      // Judged in revision order, up to the kill (after it, a daemon is down under a worker on
      // purpose).
      var promises = new DomainPromises();
      seen.stream()
          .filter(c -> c.revision() <= killedAt)
          .forEach(c -> promises.changed(c.revision(), c.object(), c.deleted()));
      System.out.printf(
          "seed 1 churn under qm up: %d replacements, %d changes judged, %d violations%n",
          ROUNDS, promises.checked(), promises.violations().size());
      assertThat(promises.violations()).isEmpty();
      assertThat(api.get(Kinds.TASK, last))
          .get()
          .matches(t -> t.status().phase() == TaskPhase.Running);

      // After the kill: readiness lost and regained, in the node's report, the domain and the task.
      var after = seen.stream().filter(c -> c.revision() > killedAt).toList();
      assertThat(
              states(
                  after,
                  Node.class,
                  n ->
                      n.metadata().name().equals("node-2")
                          ? n.status().domainDaemons().stream()
                              .filter(d -> d.domain().equals(DOMAIN))
                              .map(d -> d.ready())
                              .findFirst()
                          : Optional.empty()))
          .as("node-2's daemon reported down, then ready")
          .containsSubsequence(false, true);
      assertThat(
              states(
                  after,
                  ComputeDomain.class,
                  d ->
                      Condition.find(d.status().conditions(), DomainConditions.READY)
                          .map(Condition::isTrue)))
          .as("the domain's Ready")
          .containsSubsequence(false, true);
      var victimName = victim.metadata().name();
      assertThat(
              states(
                  after,
                  Task.class,
                  t ->
                      t.metadata().name().equals(victimName)
                          ? Condition.find(t.status().conditions(), TaskSync.DOMAIN_READY)
                              .map(Condition::isTrue)
                          : Optional.empty()))
          .as("the worker's " + TaskSync.DOMAIN_READY)
          .containsSubsequence(false, true);
      assertThat(
              after.stream()
                  .map(WatchedChange::object)
                  .filter(o -> o instanceof Task t && t.metadata().name().equals(victimName))
                  .map(o -> ((Task) o).status().phase()))
          .as("told, not stopped")
          .containsOnly(TaskPhase.Running);
      up.passed();
    }
  }

  /** The successive values {@code f} gives over changes of type {@code type}, repeats folded. */
  private static <T> List<Boolean> states(
      List<WatchedChange> changes,
      Class<T> type,
      java.util.function.Function<T, Optional<Boolean>> f) {
    var out = new ArrayList<Boolean>();
    for (var c : changes) {
      if (type.isInstance(c.object())) {
        f.apply(type.cast(c.object()))
            .filter(v -> out.isEmpty() || !out.getLast().equals(v))
            .ifPresent(out::add);
      }
    }
    return out;
  }

  private static List<Task> workers(ApiClient api) {
    return api.list(Kinds.TASK).items().stream()
        .filter(t -> t.metadata().owner().map(o -> o.name().equals("domain-job")).orElse(false))
        .filter(t -> !t.metadata().isDeleting())
        .toList();
  }

  private static boolean domainReady(ApiClient api) {
    return api.get(Kinds.COMPUTE_DOMAIN, DOMAIN)
        .flatMap(d -> Condition.find(d.status().conditions(), DomainConditions.READY))
        .map(Condition::isTrue)
        .orElse(false);
  }

  private static Optional<DomainDaemon> daemon(ApiClient api, String node) {
    return api.get(Kinds.NODE, node)
        .flatMap(
            n ->
                n.status().domainDaemons().stream()
                    .filter(d -> d.domain().equals(DOMAIN))
                    .findFirst());
  }

  private static void phase(String what, Instant since) {
    System.out.printf(
        "phase %-60s %6.1f s%n", what, Duration.between(since, Instant.now()).toMillis() / 1000.0);
  }
}
