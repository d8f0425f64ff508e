package dev.quartermaster.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A watch listener that records what it is told, for tests to await in order. */
final class Recorder implements WatchListener {
  /** One thing the listener was told. */
  sealed interface Signal {
    record Event(StoreEvent event) implements Signal {}

    record Compacted(long compactedRevision) implements Signal {}

    record Closed(String reason) implements Signal {}
  }

  private final BlockingQueue<Signal> signals = new LinkedBlockingQueue<>();

  /**
   * What {@link #onCaughtUp} said, kept beside the signals so that tests of events need not skip
   * it.
   */
  private final java.util.concurrent.CountDownLatch caught =
      new java.util.concurrent.CountDownLatch(1);

  private final List<String> caughtUpBroken = new java.util.concurrent.CopyOnWriteArrayList<>();
  private volatile long caughtUpAt = -1;
  private volatile int eventsBeforeCaughtUp = -1;
  private volatile long lastRevision = -1;
  private volatile int events;

  @Override
  public void onEvent(StoreEvent event) {
    if (caughtUpAt >= 0 && event.revision() <= caughtUpAt) {
      caughtUpBroken.add(
          "event at revision " + event.revision() + " after caught-up at " + caughtUpAt);
    }
    lastRevision = event.revision();
    events++;
    signals.add(new Signal.Event(event));
  }

  @Override
  public void onCaughtUp(long revision) {
    if (caughtUpAt >= 0) {
      caughtUpBroken.add("told caught-up twice: " + caughtUpAt + " and " + revision);
    }
    if (revision < lastRevision) {
      caughtUpBroken.add("caught-up at " + revision + " after an event at " + lastRevision);
    }
    eventsBeforeCaughtUp = events;
    caughtUpAt = revision;
    caught.countDown();
  }

  /**
   * The revision {@link #onCaughtUp} named, awaited; fails if it broke its promise (twice, or out
   * of order).
   */
  long awaitCaughtUp() {
    try {
      if (!caught.await(StoreFixture.AWAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        fail("the watch never said it caught up within " + StoreFixture.AWAIT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
    assertThat(caughtUpBroken).isEmpty();
    return caughtUpAt;
  }

  /** How many events came before {@link #onCaughtUp}. */
  int eventsBeforeCaughtUp() {
    return eventsBeforeCaughtUp;
  }

  /**
   * Broken promises of {@link #onCaughtUp} seen so far (an event at or below it after it, a second
   * one).
   */
  List<String> caughtUpBroken() {
    return List.copyOf(caughtUpBroken);
  }

  @Override
  public void onCompacted(long compactedRevision) {
    signals.add(new Signal.Compacted(compactedRevision));
  }

  @Override
  public void onClosed(String reason) {
    signals.add(new Signal.Closed(reason));
  }

  Signal next() {
    try {
      Signal s = signals.poll(StoreFixture.AWAIT.toMillis(), TimeUnit.MILLISECONDS);
      if (s == null) {
        fail("the watch told nothing within " + StoreFixture.AWAIT);
      }
      return s;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  StoreEvent nextEvent() {
    Signal s = next();
    assertThat(s).as("next watch signal").isInstanceOf(Signal.Event.class);
    return ((Signal.Event) s).event();
  }

  List<StoreEvent> events(int count) {
    List<StoreEvent> events = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      events.add(nextEvent());
    }
    return events;
  }

  /** Every event up to and including the first one at {@code revision} or later. */
  List<StoreEvent> eventsThrough(long revision) {
    List<StoreEvent> events = new ArrayList<>();
    while (events.isEmpty() || events.getLast().revision() < revision) {
      events.add(nextEvent());
    }
    return events;
  }

  long awaitCompacted() {
    Signal s = next();
    assertThat(s).as("next watch signal").isInstanceOf(Signal.Compacted.class);
    return ((Signal.Compacted) s).compactedRevision();
  }

  String awaitClosed() {
    Signal s = next();
    assertThat(s).as("next watch signal").isInstanceOf(Signal.Closed.class);
    return ((Signal.Closed) s).reason();
  }

  /** What has arrived so far and was not taken, without waiting. */
  Optional<Signal> poll() {
    return Optional.ofNullable(signals.poll());
  }

  static List<Long> revisions(List<StoreEvent> events) {
    return events.stream().map(StoreEvent::revision).toList();
  }
}
