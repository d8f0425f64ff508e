package dev.quartermaster.sim.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.event.Event;
import dev.quartermaster.api.event.EventLog;
import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.api.event.EventSpec;
import dev.quartermaster.api.event.EventStatus;
import dev.quartermaster.api.event.EventType;
import dev.quartermaster.api.event.InvolvedObject;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.control.events.EventExpiry;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.sim.ForwardingApiClient;
import dev.quartermaster.sim.SimStore;
import dev.quartermaster.sim.WatchFaults;
import dev.quartermaster.store.registry.ObjectRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Events must not flood the store: a hot loop is one object whose count grows, written at most once
 * a flush; a restarted process adds to the same object; failures wait and refusals are dropped. The
 * naive recorder (an object per report, as a first version would write) fails the bound.
 */
class EventLogTest {
  private static final InvolvedObject TASK = new InvolvedObject("Task", "train-workers-3");

  private final DeterministicEnv env = new DeterministicEnv(7);
  private final SimStore store = new SimStore(env, WatchFaults.NONE);
  private final ApiClient api = new ObjectRegistry(store, env);

  private EventLog log(ApiClient client) {
    return new EventLog(client, env::now, env::schedule);
  }

  /** Reports {@code times} times over {@code over}, evenly, then lets every flush run. */
  private void hammer(EventRecorder recorder, int times, Duration over) {
    var step = over.dividedBy(times);
    for (int i = 0; i < times; i++) {
      recorder.record(TASK, EventType.Warning, "BackOff", "restarting in 10s, attempt " + i);
      env.advance(step);
    }
    env.advance(EventLog.FLUSH_EVERY.multipliedBy(2));
  }

  @Test
  void aHotLoopIsOneEventWrittenAtMostOnceAFlush() {
    long before = store.currentRevision();
    hammer(log(api).recorder("workloads"), 10_000, Duration.ofSeconds(10));
    long writes = store.currentRevision() - before;

    var events = api.list(Kinds.EVENT).items();
    assertThat(events).hasSize(1);
    var e = events.getFirst().spec();
    assertThat(e.count()).isEqualTo(10_000);
    assertThat(e.message()).isEqualTo("restarting in 10s, attempt 9999");
    assertThat(e.involved()).isEqualTo(TASK);
    assertThat(e.lastSeen()).isAfter(e.firstSeen());
    assertThat(writes).as("one write per flush of 1 s over 10 s").isLessThanOrEqualTo(12);
  }

  @Test
  void theNaiveRecorderFloodsTheStore() {
    long before = store.currentRevision();
    hammer(naive(api), 10_000, Duration.ofSeconds(10));
    assertThat(store.currentRevision() - before)
        .as("the bound the real log keeps")
        .isGreaterThan(12);
  }

  @Test
  void aRestartedProcessAddsToTheSameEvent() {
    log(api).recorder("agent/node-1").record(TASK, EventType.Normal, "Started", "first");
    env.advance(Duration.ofSeconds(2));
    // A new process knows nothing of the first one's event: its create meets the same name.
    log(api).recorder("agent/node-1").record(TASK, EventType.Normal, "Started", "second");
    env.advance(Duration.ofSeconds(2));
    var events = api.list(Kinds.EVENT).items();
    assertThat(events).hasSize(1);
    assertThat(events.getFirst().spec().count()).isEqualTo(2);
    assertThat(events.getFirst().spec().message()).isEqualTo("second");
  }

  /**
   * A task made again under its name (a replaced worker) starts its own events: the naive key (kind
   * and name) would add the new task's first start to the old one's count and first-seen time, so a
   * task 5 s old would show COUNT 8, first seen 24 minutes ago.
   */
  @Test
  void anObjectMadeAgainUnderItsNameStartsItsOwnEvents() {
    var first = new InvolvedObject("Task", "train-workers-3", "uid-1");
    var second = new InvolvedObject("Task", "train-workers-3", "uid-2");
    var log = log(api);
    for (int i = 0; i < 7; i++) {
      log.recorder("agent/node-1").record(first, EventType.Normal, "Started", "attempt " + i);
    }
    env.advance(Duration.ofMinutes(24));
    log.recorder("agent/node-1").record(second, EventType.Normal, "Started", "the new one");
    env.advance(Duration.ofSeconds(2));
    var events = api.list(Kinds.EVENT).items();
    assertThat(events).hasSize(2);
    var latest =
        events.stream().filter(e -> e.spec().involved().equals(second)).findFirst().orElseThrow();
    assertThat(latest.spec().count()).isEqualTo(1);
    assertThat(latest.spec().firstSeen()).isEqualTo(latest.spec().lastSeen());
    assertThat(latest.metadata().labels()).containsEntry(EventLog.LABEL_UID, "uid-2");
    assertThat(second.sameIncarnation(first.withoutUid())).isTrue();
    assertThat(second.sameIncarnation(first)).isFalse();

    // The naive key: both incarnations under one name, one event with both counts.
    var naiveFirst = first.withoutUid();
    assertThat(EventLog.nameOf(naiveFirst, EventType.Normal, "Started", "agent/node-1"))
        .isEqualTo(
            EventLog.nameOf(second.withoutUid(), EventType.Normal, "Started", "agent/node-1"));
    assertThat(EventLog.nameOf(first, EventType.Normal, "Started", "agent/node-1"))
        .isNotEqualTo(EventLog.nameOf(second, EventType.Normal, "Started", "agent/node-1"));
  }

  @Test
  void differentSourcesReasonsAndObjectsAreDifferentEvents() {
    var log = log(api);
    log.recorder("scheduler").record(TASK, EventType.Normal, "Scheduled", "to node-1");
    log.recorder("agent/node-1").record(TASK, EventType.Normal, "Started", "opened 4 device nodes");
    log.recorder("scheduler")
        .record(new InvolvedObject("Task", "other"), EventType.Normal, "Scheduled", "to node-2");
    env.advance(Duration.ofSeconds(2));
    assertThat(api.list(Kinds.EVENT).items()).hasSize(3);
  }

  @Test
  void writesThatFailAreKeptAndLandOnceTheStoreAnswers() {
    var down = new AtomicInteger(3);
    var flaky =
        new ForwardingApiClient(api) {
          @Override
          public <T extends ApiObject> T create(T object) {
            if (down.getAndDecrement() > 0) {
              throw new ApiException(Reason.Unavailable, "store unavailable");
            }
            return super.create(object);
          }
        };
    var log = log(flaky);
    log.recorder("scheduler").record(TASK, EventType.Normal, "Scheduled", "a");
    env.advance(Duration.ofMillis(1500));
    log.recorder("scheduler").record(TASK, EventType.Normal, "Scheduled", "b");
    env.advance(Duration.ofSeconds(10));
    var events = api.list(Kinds.EVENT).items();
    assertThat(events).hasSize(1);
    assertThat(events.getFirst().spec().count()).isEqualTo(2);
    assertThat(log.dropped()).isZero();
  }

  @Test
  void anEventTheStoreRefusesIsDroppedNotRetriedForEver() {
    var log = log(api);
    log.recorder("scheduler").record(TASK, EventType.Normal, "not a reason", "x");
    long before = store.currentRevision();
    env.advance(Duration.ofMinutes(5));
    assertThat(log.dropped()).isEqualTo(1);
    assertThat(env.pendingTasks()).as("no flush left scheduled").isZero();
    assertThat(store.currentRevision()).isEqualTo(before);
  }

  @Test
  void oneFlushWritesAtMostItsShareAndTheRestFollow() {
    var log = log(api);
    var recorder = log.recorder("scheduler");
    int n = EventLog.MAX_WRITES_PER_FLUSH + 100;
    for (int i = 0; i < n; i++) {
      recorder.record(
          new InvolvedObject("Task", "t-" + i), EventType.Normal, "Scheduled", "to node-1");
    }
    env.advance(EventLog.FLUSH_EVERY);
    assertThat(api.list(Kinds.EVENT).items()).hasSize(EventLog.MAX_WRITES_PER_FLUSH);
    env.advance(EventLog.FLUSH_EVERY);
    assertThat(api.list(Kinds.EVENT).items()).hasSize(n);
  }

  @Test
  void expiryDeletesOnlyEventsNotSeenForTheTtl() {
    var log = log(api);
    log.recorder("scheduler").record(TASK, EventType.Normal, "Scheduled", "old");
    env.advance(Duration.ofMinutes(50));
    log.recorder("scheduler")
        .record(
            new InvolvedObject("Node", "node-1"), EventType.Warning, "DevicesNotReady", "recent");
    env.advance(Duration.ofMinutes(15));
    int deleted = new EventExpiry(env, api, EventExpiry.TTL).expireOnce();
    assertThat(deleted).isEqualTo(1);
    assertThat(api.list(Kinds.EVENT).items())
        .extracting(e -> e.spec().reason())
        .containsExactly("DevicesNotReady");
  }

  /** The first version anyone writes: a new object for every report. */
  private EventRecorder naive(ApiClient client) {
    var serial = new AtomicInteger();
    return (involved, type, reason, message) -> {
      var spec =
          new EventSpec(involved, type, reason, message, "workloads", 1, env.now(), env.now());
      client.create(
          new Event(
              ObjectMeta.named(involved.name() + "-" + serial.incrementAndGet()),
              spec,
              EventStatus.EMPTY));
    };
  }
}
