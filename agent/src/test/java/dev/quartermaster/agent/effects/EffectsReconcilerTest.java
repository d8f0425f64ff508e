package dev.quartermaster.agent.effects;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.ledger.NodeEffects;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EffectsReconcilerTest {
  @Test
  void startsHelpersBeforePublishingAndUnpublishesBeforeStopping() {
    var events = new ArrayList<String>();
    var inner = new InMemoryHelperProcesses();
    var helpers =
        new HelperProcesses() {
          @Override
          public Set<String> running() {
            return inner.running();
          }

          @Override
          public void start(String domain) throws java.io.IOException {
            events.add("start " + domain);
            inner.start(domain);
          }

          @Override
          public void stop(String domain) {
            events.add("stop " + domain);
            inner.stop(domain);
          }

          @Override
          public java.util.List<dev.quartermaster.api.node.DomainDaemon> daemons(
              Set<String> wanted, java.time.Instant now) {
            return inner.daemons(wanted, now);
          }

          @Override
          public dev.quartermaster.agent.domaind.DaemonAnswer readiness(String domain) {
            return inner.readiness(domain);
          }
        };
    DomainMembership membership =
        domains -> events.add("publish " + new java.util.TreeSet<>(domains));
    var reconciler = new EffectsReconciler(helpers, membership);
    reconciler.reconcile(new NodeEffects(Set.of("cd-1")));
    reconciler.reconcile(new NodeEffects(Set.of("cd-1"))); // nothing to do
    reconciler.reconcile(NodeEffects.NONE);
    assertThat(events).containsExactly("start cd-1", "publish [cd-1]", "publish []", "stop cd-1");
  }

  @Test
  void aHelperThatFailsToStartKeepsItsDomainUnpublishedAndIsRetried() {
    var helpers = new InMemoryHelperProcesses();
    var published = new ArrayList<Set<String>>();
    var reconciler = new EffectsReconciler(helpers, published::add);
    helpers.failStarts("cd-1", true);
    var outcome = reconciler.reconcile(new NodeEffects(Set.of("cd-1")));
    assertThat(outcome.ok()).isFalse();
    assertThat(outcome.errors()).anyMatch(e -> e.contains("cd-1"));
    assertThat(outcome.published()).isEmpty();
    helpers.failStarts("cd-1", false);
    assertThat(reconciler.reconcile(new NodeEffects(Set.of("cd-1"))).published())
        .containsExactly("cd-1");
  }

  @Test
  void aFailedPublishStopsNoHelper() {
    var helpers = new InMemoryHelperProcesses();
    var fail = new boolean[] {false};
    var reconciler =
        new EffectsReconciler(
            helpers,
            d -> {
              if (fail[0]) {
                throw new IllegalStateException("api down");
              }
            });
    reconciler.reconcile(new NodeEffects(Set.of("cd-1")));
    fail[0] = true;
    var outcome = reconciler.reconcile(NodeEffects.NONE);
    assertThat(outcome.ok()).isFalse();
    assertThat(helpers.running())
        .containsExactly("cd-1"); // still published as member: keep the helper
  }

  @Test
  void realHelpersAreOsProcessesThatANewAgentAdopts(@TempDir Path dir) throws Exception {
    var first = new OsHelperProcesses(dir, List.of("sleep", "infinity"));
    first.start("cd-1");
    assertThat(first.running()).containsExactly("cd-1");
    var pid = Long.parseLong(java.nio.file.Files.readString(dir.resolve("cd-1.pid")).split(" ")[0]);
    assertThat(ProcessHandle.of(pid)).get().matches(ProcessHandle::isAlive);
    // The agent restarts: the helper keeps running and is adopted, not started twice.
    var second = new OsHelperProcesses(dir, List.of("sleep", "infinity"));
    assertThat(second.running()).containsExactly("cd-1");
    second.start("cd-1");
    assertThat(java.nio.file.Files.readString(dir.resolve("cd-1.pid"))).startsWith(pid + " ");
    second.stop("cd-1");
    // Stopped means a zombie at least; this JVM's reaper (the first start's parent) reaps it soon
    // after, and only then does isAlive turn false.
    assertThat(
            ProcessHandle.of(pid)
                .map(dev.quartermaster.agent.runtime.ProcessTree::running)
                .orElse(false))
        .isFalse();
    ProcessHandle.of(pid)
        .ifPresent(h -> h.onExit().orTimeout(30, java.util.concurrent.TimeUnit.SECONDS).join());
    assertThat(second.running()).isEmpty();
    assertThat(dir.resolve("cd-1.pid")).doesNotExist();
  }
}
