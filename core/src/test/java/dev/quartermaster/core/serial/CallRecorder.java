package dev.quartermaster.core.serial;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Submits scripted calls to any {@link Serializer} and records what the storage system would see:
 * which calls started, in which order, and how many calls for one key were in flight at once. The
 * test completes the calls it wants, when it wants, so no thread and no clock is involved.
 *
 * <p>Single-threaded: use it on a {@link dev.quartermaster.core.env.DeterministicEnv}'s thread.
 */
public final class CallRecorder<K> {

  /** What a call does when started. */
  public enum Behaviour {
    /** Returns a stage that stays pending until the test completes it: the call is in flight. */
    PENDING,
    /** Throws from the supplier. */
    THROWS,
    /** Returns an already failed stage. */
    FAILS,
    /** Returns an already completed stage. */
    SUCCEEDS
  }

  /** A submitted call: its key, its id (submission order across keys) and the returned stage. */
  public record Submitted<K>(K key, int id, CompletionStage<String> result) {}

  /** A started call still in flight; the test ends it with {@link #succeed} or {@link #fail}. */
  public record Running<K>(K key, int id, CompletableFuture<String> stage) {}

  private final Map<K, List<Integer>> submissions = new LinkedHashMap<>();
  private final Map<K, List<Integer>> starts = new LinkedHashMap<>();
  private final Map<K, Integer> inFlight = new HashMap<>();
  private final List<Running<K>> running = new ArrayList<>();
  private final Set<Integer> started = new HashSet<>();
  private final Set<Integer> abandoned = new HashSet<>();
  private final Set<Thread> threads = new HashSet<>();
  private final List<String> violations = new ArrayList<>();
  private int nextId;
  private int maxInFlightPerKey;

  /** Submits a call for {@code key} that stays in flight until the test ends it. */
  public Submitted<K> submit(Serializer<K> serializer, K key) {
    return submit(serializer, key, Behaviour.PENDING);
  }

  /** Submits a call for {@code key} that does {@code behaviour} when started. */
  public Submitted<K> submit(Serializer<K> serializer, K key, Behaviour behaviour) {
    int id = nextId++;
    submissions.computeIfAbsent(key, k -> new ArrayList<>()).add(id);
    CompletionStage<String> result = serializer.submit(key, () -> start(key, id, behaviour));
    return new Submitted<>(key, id, result);
  }

  /**
   * Cancels the returned future of {@code call}; when the call has not started, it is recorded as
   * abandoned, and starting it later is a violation.
   */
  public boolean cancel(Submitted<K> call) {
    if (!started.contains(call.id())) {
      abandoned.add(call.id());
    }
    return call.result().toCompletableFuture().cancel(false);
  }

  /** Ends {@code call} successfully, with the value {@code "<key>#<id>"}. */
  public void succeed(Running<K> call) {
    end(call);
    call.stage().complete(call.key() + "#" + call.id());
  }

  /** Ends {@code call} with an {@link IllegalStateException}. */
  public void fail(Running<K> call) {
    end(call);
    call.stage().completeExceptionally(new IllegalStateException("call " + call.id() + " failed"));
  }

  /** Calls in flight, in start order. */
  public List<Running<K>> running() {
    return List.copyOf(running);
  }

  /** The oldest call in flight for {@code key}; fails when none is. */
  public Running<K> runningFor(K key) {
    return running.stream()
        .filter(r -> r.key().equals(key))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no call in flight for " + key));
  }

  /** Ids of the calls submitted for {@code key}, in submission order. */
  public List<Integer> submissions(K key) {
    return List.copyOf(submissions.getOrDefault(key, List.of()));
  }

  /** Ids of the calls started for {@code key}, in start order. */
  public List<Integer> starts(K key) {
    return List.copyOf(starts.getOrDefault(key, List.of()));
  }

  /** Calls started so far, over all keys. */
  public int startedCount() {
    return started.size();
  }

  /** Calls submitted so far, over all keys. */
  public int submittedCount() {
    return nextId;
  }

  /** Calls cancelled before they started. */
  public int abandonedCount() {
    return abandoned.size();
  }

  /** The most calls for one key that were in flight at once. */
  public int maxInFlightPerKey() {
    return maxInFlightPerKey;
  }

  /** The threads that started calls. */
  public Set<Thread> threads() {
    return Set.copyOf(threads);
  }

  /** Starts of calls that were cancelled before they started; empty when none. */
  public List<String> violations() {
    return List.copyOf(violations);
  }

  /**
   * Starts that were not of the oldest call of their key that had neither started nor been
   * abandoned: zero exactly when every key's calls started in submission order.
   */
  public int outOfOrderStarts() {
    int outOfOrder = 0;
    for (Map.Entry<K, List<Integer>> entry : starts.entrySet()) {
      List<Integer> expected = new ArrayList<>(submissions.get(entry.getKey()));
      expected.removeIf(abandoned::contains);
      for (int id : entry.getValue()) {
        if (!expected.isEmpty() && expected.getFirst() != id) {
          outOfOrder++;
        }
        expected.remove(Integer.valueOf(id));
      }
    }
    return outOfOrder;
  }

  /**
   * The most later-submitted calls of the same key that started before one call did (or before now,
   * for a call not started yet): how long the unluckiest waiter was passed over.
   */
  public int maxOvertaken() {
    int max = 0;
    for (Map.Entry<K, List<Integer>> entry : submissions.entrySet()) {
      List<Integer> startOrder = starts.getOrDefault(entry.getKey(), List.of());
      for (int id : entry.getValue()) {
        if (abandoned.contains(id)) {
          continue;
        }
        int position = startOrder.indexOf(id);
        List<Integer> before = position < 0 ? startOrder : startOrder.subList(0, position);
        max = Math.max(max, (int) before.stream().filter(other -> other > id).count());
      }
    }
    return max;
  }

  private CompletionStage<String> start(K key, int id, Behaviour behaviour) {
    threads.add(Thread.currentThread());
    if (abandoned.contains(id)) {
      violations.add("call " + id + " for " + key + " started after it was cancelled");
    }
    started.add(id);
    starts.computeIfAbsent(key, k -> new ArrayList<>()).add(id);
    int now = inFlight.merge(key, 1, Integer::sum);
    maxInFlightPerKey = Math.max(maxInFlightPerKey, now);
    if (behaviour != Behaviour.PENDING) {
      inFlight.merge(key, -1, Integer::sum);
    }
    return switch (behaviour) {
      case PENDING -> {
        CompletableFuture<String> stage = new CompletableFuture<>();
        running.add(new Running<>(key, id, stage));
        yield stage;
      }
      case THROWS -> throw new IllegalStateException("call " + id + " threw");
      case FAILS -> CompletableFuture.failedFuture(new IllegalStateException("call " + id));
      case SUCCEEDS -> CompletableFuture.completedFuture(key + "#" + id);
    };
  }

  private void end(Running<K> call) {
    if (!running.remove(call)) {
      throw new IllegalStateException("call " + call.id() + " is not in flight");
    }
    inFlight.merge(call.key(), -1, Integer::sum);
  }
}
