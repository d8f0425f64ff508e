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

  @Override
  public void onEvent(StoreEvent event) {
    signals.add(new Signal.Event(event));
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
