package dev.quartermaster.agent;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Bounded waits for tests, driven by events (API watch events, file-system events) with a
 * generous deadline: only a real hang fails them. No sleeping, no timing assertions.
 */
final class ApiAwait {
  static final Duration DEADLINE = Duration.ofSeconds(90);

  private ApiAwait() {}

  /** Waits until {@code condition} holds for every object of {@code kind}; returns them. */
  static <T extends ApiObject> List<T> until(ApiClient api, Kind<T> kind, String what, Predicate<List<T>> condition)
      throws InterruptedException {
    var changes = new LinkedBlockingQueue<Long>();
    var start = api.list(kind).revision();
    try (var watch = api.watch(kind, start, new WatchHandler<T>() {
      @Override
      public void onEvent(dev.quartermaster.api.client.WatchEvent<T> event) {
        changes.add(event.revision());
      }

      @Override
      public void onGone(long compactedRevision) {
        changes.add(-1L);
      }
    })) {
      long deadline = System.nanoTime() + DEADLINE.toNanos();
      while (true) {
        var current = api.list(kind).items();
        if (condition.test(current)) {
          return current;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0 || changes.poll(left, TimeUnit.NANOSECONDS) == null) {
          throw new AssertionError("not within " + DEADLINE + ": " + what + "; last " + kind + "s: " + current);
        }
      }
    }
  }

  /** Waits, on file-system events in its directory, until {@code file} contains {@code text}. */
  static String fileContains(Path file, String text) throws IOException, InterruptedException {
    try (var service = file.getFileSystem().newWatchService()) {
      file.getParent().register(service, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY);
      long deadline = System.nanoTime() + DEADLINE.toNanos();
      while (true) {
        var content = read(file);
        if (content.contains(text)) {
          return content;
        }
        long left = deadline - System.nanoTime();
        var key = left <= 0 ? null : service.poll(left, TimeUnit.NANOSECONDS);
        if (key == null) {
          throw new AssertionError("not within " + DEADLINE + ": '" + text + "' in " + file + "; it has: " + content);
        }
        key.pollEvents();
        key.reset();
      }
    }
  }

  /** Waits, on file-system events in its directory, until {@code file} no longer contains {@code text}. */
  static String fileLacks(Path file, String text) throws IOException, InterruptedException {
    try (var service = file.getFileSystem().newWatchService()) {
      file.getParent().register(service, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY);
      long deadline = System.nanoTime() + DEADLINE.toNanos();
      while (true) {
        var content = read(file);
        if (!content.contains(text)) {
          return content;
        }
        long left = deadline - System.nanoTime();
        var key = left <= 0 ? null : service.poll(left, TimeUnit.NANOSECONDS);
        if (key == null) {
          throw new AssertionError("not within " + DEADLINE + ": '" + text + "' gone from " + file);
        }
        key.pollEvents();
        key.reset();
      }
    }
  }

  private static String read(Path file) throws IOException {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return "";
    }
  }
}
