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
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Bounded waits for tests, driven by events (API watch events, file-system events) with a generous
 * deadline: only a real hang fails them. No sleeping, no timing assertions.
 */
final class ApiAwait {
  static final Duration DEADLINE = Duration.ofSeconds(90);

  private ApiAwait() {}

  /** Waits until {@code condition} holds for every object of {@code kind}; returns them. */
  static <T extends ApiObject> List<T> until(
      ApiClient api, Kind<T> kind, String what, Predicate<List<T>> condition)
      throws InterruptedException {
    return onChanges(api, kind, () -> api.list(kind).items(), condition, what);
  }

  /**
   * Waits until {@code condition} holds for the object {@code name} (empty: it does not exist);
   * returns it.
   */
  static <T extends ApiObject> Optional<T> object(
      ApiClient api, Kind<T> kind, String name, Predicate<Optional<T>> condition)
      throws InterruptedException {
    return onChanges(
        api, kind, () -> api.get(kind, name), condition, kind + " " + name + " to match");
  }

  /**
   * Re-reads after every watch event of {@code kind} until {@code condition} holds for what it
   * read.
   */
  private static <T extends ApiObject, R> R onChanges(
      ApiClient api, Kind<T> kind, Supplier<R> read, Predicate<R> condition, String what)
      throws InterruptedException {
    var changes = new LinkedBlockingQueue<Long>();
    var start = api.list(kind).revision();
    try (var watch =
        api.watch(
            kind,
            start,
            new WatchHandler<T>() {
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
        var current = read.get();
        if (condition.test(current)) {
          return current;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0 || changes.poll(left, TimeUnit.NANOSECONDS) == null) {
          throw new AssertionError("not within " + DEADLINE + ": " + what + "; last: " + current);
        }
      }
    }
  }

  /** Waits, on file-system events in its directory, until {@code file} contains {@code text}. */
  static String fileContains(Path file, String text) throws IOException, InterruptedException {
    return fileUntil(file, content -> content.contains(text), "'" + text + "' in " + file);
  }

  /**
   * Waits, on file-system events in its directory, until {@code file} no longer contains {@code
   * text}.
   */
  static String fileLacks(Path file, String text) throws IOException, InterruptedException {
    return fileUntil(file, content -> !content.contains(text), "'" + text + "' gone from " + file);
  }

  /**
   * Waits until task {@code task}'s output here contains {@code text}: its attempt's log, or its
   * previous attempt's, where the agent moves it when a replacement of the same name starts (a
   * stopped task's last words may be there before anyone reads them).
   */
  static String taskOutputContains(NodeAgentConfig config, String task, String text)
      throws IOException, InterruptedException {
    var current = config.taskLog(task);
    var previous = dev.quartermaster.agent.tasks.TaskLogs.previous(current);
    return filesUntil(
        List.of(current, previous),
        content -> content.contains(text),
        "'" + text + "' in " + current + " or " + previous.getFileName());
  }

  private static String fileUntil(Path file, Predicate<String> condition, String what)
      throws IOException, InterruptedException {
    return filesUntil(List.of(file), condition, what);
  }

  /** As {@link #fileUntil}, on the contents of {@code files} (of one directory) together. */
  private static String filesUntil(List<Path> files, Predicate<String> condition, String what)
      throws IOException, InterruptedException {
    var dir = files.getFirst().getParent();
    try (var service = dir.getFileSystem().newWatchService()) {
      dir.register(
          service, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY);
      long deadline = System.nanoTime() + DEADLINE.toNanos();
      while (true) {
        var content = new StringBuilder();
        for (var f : files) {
          content.append(read(f));
        }
        if (condition.test(content.toString())) {
          return content.toString();
        }
        long left = deadline - System.nanoTime();
        var key = left <= 0 ? null : service.poll(left, TimeUnit.NANOSECONDS);
        if (key == null) {
          throw new AssertionError("not within " + DEADLINE + ": " + what + "; it has: " + content);
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
