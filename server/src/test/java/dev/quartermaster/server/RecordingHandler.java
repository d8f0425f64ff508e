package dev.quartermaster.server;

import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.meta.ApiObject;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** Puts everything a watch reports on one queue, in order, for the test to take with a bound. */
final class RecordingHandler<T extends ApiObject> implements WatchHandler<T> {
  /** Everything this handler heard: an event, a gone, or a close. */
  sealed interface Heard {}

  record Event<T extends ApiObject>(WatchEvent<T> event) implements Heard {}

  record Gone(long compactedRevision) implements Heard {}

  record Closed(String reason) implements Heard {}

  private final BlockingQueue<Heard> heard = new LinkedBlockingQueue<>();

  @Override
  public void onEvent(WatchEvent<T> event) {
    heard.add(new Event<>(event));
  }

  @Override
  public void onGone(long compactedRevision) {
    heard.add(new Gone(compactedRevision));
  }

  @Override
  public void onClosed(String reason) {
    heard.add(new Closed(reason));
  }

  /** The next thing heard; fails the test if nothing comes within a generous bound. */
  Heard next() {
    try {
      var item = heard.poll(10, TimeUnit.SECONDS);
      if (item == null) {
        throw new AssertionError("the watch reported nothing within 10 s");
      }
      return item;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  @SuppressWarnings("unchecked")
  WatchEvent<T> nextEvent() {
    var item = next();
    if (item instanceof Event<?> e) {
      return (WatchEvent<T>) e.event();
    }
    throw new AssertionError("expected an event, got " + item);
  }

  boolean isEmpty() {
    return heard.isEmpty();
  }
}
