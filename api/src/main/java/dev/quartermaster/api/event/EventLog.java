package dev.quartermaster.api.event;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.Write;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.zip.CRC32;

/**
 * A process's events on their way to the store, aggregated so that a hot loop cannot flood it.
 *
 * <p>Contract: {@link #recorder(String) recording} only notes the event in memory. The same thing
 * (same involved object, type, reason and source) is one {@link Event} object, under a name derived
 * from those four, so it stays one object across restarts and across control-plane replicas; its
 * repetitions add to {@code count} and move {@code lastSeen}. Pending events are written by a flush
 * that runs {@link #FLUSH_EVERY} after the first unwritten one: each key is written at most once
 * per flush, at most {@link #MAX_WRITES_PER_FLUSH} keys per flush, so the whole process writes at
 * most that many events a second however often it records. At most {@link #MAX_PENDING} distinct
 * keys wait; beyond that new keys are dropped and counted ({@link #dropped()}). A failed write is
 * kept and tried at the next flush; nothing here ever throws to the recording component.
 */
public final class EventLog {
  public static final Duration FLUSH_EVERY = Duration.ofSeconds(1);
  public static final int MAX_WRITES_PER_FLUSH = 500;
  public static final int MAX_PENDING = 10_000;

  /**
   * Events carry their involved object in labels, so {@code qm get events --for task/x} is a label
   * selector.
   */
  public static final String LABEL_KIND = "events.quartermaster.dev/kind";

  public static final String LABEL_NAME = "events.quartermaster.dev/name";

  /** The involved object's uid, where known: events of one incarnation of a name. */
  public static final String LABEL_UID = "events.quartermaster.dev/uid";

  public static final int MAX_MESSAGE = 1024;

  /** New events created in one commit at most (etcd takes 64 puts in a transaction). */
  static final int CREATES_PER_COMMIT = 32;

  /** Flushes an event may fail before it is dropped. */
  static final int MAX_FAILURES = 60;

  /**
   * How many written events are remembered with their revision, to update without reading first.
   */
  private static final int REMEMBERED = 10_000;

  /** Runs a task after a delay: the component's {@code Env}. */
  @FunctionalInterface
  public interface Scheduler {
    void after(Duration delay, Runnable task);
  }

  private record Key(InvolvedObject involved, EventType type, String reason, String source) {}

  private static final class Pending {
    long times;
    int failures;
    Instant first;
    Instant last;
    String message;

    Pending(Instant at, String message) {
      this.first = at;
      this.last = at;
      this.message = message;
    }

    void add(long more, Instant at, String latest) {
      times += more;
      if (!at.isBefore(last)) {
        last = at;
        message = latest;
      }
      if (at.isBefore(first)) {
        first = at;
      }
    }
  }

  private final ApiClient api;
  private final Supplier<Instant> clock;
  private final Scheduler scheduler;
  private final Map<Key, Pending> pending = new LinkedHashMap<>();
  private final Map<Key, Event> written =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Event> eldest) {
          return size() > REMEMBERED;
        }
      };
  private boolean flushScheduled;
  private long dropped;
  private long writes;

  public EventLog(ApiClient api, Supplier<Instant> clock, Scheduler scheduler) {
    this.api = api;
    this.clock = clock;
    this.scheduler = scheduler;
  }

  /**
   * The recorder of one component; {@code source} names it in every event ({@code scheduler},
   * {@code agent/node-1}).
   */
  public EventRecorder recorder(String source) {
    return (involved, type, reason, message) ->
        note(new Key(involved, type, reason, source), message);
  }

  private void note(Key key, String message) {
    var text =
        message.length() <= MAX_MESSAGE ? message : message.substring(0, MAX_MESSAGE - 3) + "...";
    var at = clock.get();
    boolean schedule;
    synchronized (this) {
      var p = pending.get(key);
      if (p == null) {
        if (pending.size() >= MAX_PENDING) {
          dropped++;
          return;
        }
        p = new Pending(at, text);
        pending.put(key, p);
      }
      p.add(1, at, text);
      schedule = !flushScheduled;
      flushScheduled = true;
    }
    if (schedule) {
      scheduler.after(FLUSH_EVERY, this::flush);
    }
  }

  /**
   * Writes what is pending (at most {@link #MAX_WRITES_PER_FLUSH} keys); what is left or failed
   * waits for the next flush.
   */
  public void flush() {
    var batch = new ArrayList<Map.Entry<Key, Pending>>();
    synchronized (this) {
      var it = pending.entrySet().iterator();
      while (it.hasNext() && batch.size() < MAX_WRITES_PER_FLUSH) {
        batch.add(it.next());
        it.remove();
      }
    }
    // Events this process has not written yet are created together, a transaction per chunk: a
    // burst of new tasks brings as many new events, and one commit each would cost a transaction
    // each.
    var fresh = new ArrayList<Map.Entry<Key, Pending>>();
    var rest = new ArrayList<Map.Entry<Key, Pending>>();
    synchronized (this) {
      batch.forEach(e -> (written.containsKey(e.getKey()) ? rest : fresh).add(e));
    }
    for (int from = 0; from < fresh.size(); from += CREATES_PER_COMMIT) {
      var chunk = fresh.subList(from, Math.min(fresh.size(), from + CREATES_PER_COMMIT));
      if (!createTogether(chunk)) {
        rest.addAll(chunk); // one of them exists already, say: each on its own
      }
    }
    for (var entry : rest) {
      try {
        write(entry.getKey(), entry.getValue());
      } catch (RuntimeException e) {
        // Unavailable, fenced, partitioned: keep it for the next flush. Refused (invalid,
        // forbidden, about an object that is gone) or failing for a minute: drop it, counted,
        // rather than retry for ever.
        var p = entry.getValue();
        p.failures++;
        boolean refused =
            e instanceof ApiException a
                && (a.is(Reason.Invalid)
                    || a.is(Reason.Forbidden)
                    || a.is(Reason.NotFound)
                    || a.is(Reason.BadRequest)
                    || a.is(Reason.PayloadTooLarge));
        synchronized (this) {
          var now = pending.get(entry.getKey());
          if (refused || p.failures > MAX_FAILURES) {
            dropped++;
          } else if (now == null) {
            pending.put(entry.getKey(), p);
          } else {
            now.add(p.times, p.last, p.message);
            now.failures = p.failures;
          }
        }
      }
    }
    boolean again;
    synchronized (this) {
      again = !pending.isEmpty();
      flushScheduled = again;
    }
    if (again) {
      scheduler.after(FLUSH_EVERY, this::flush);
    }
  }

  /**
   * Creates every event of {@code chunk} in one commit; false (nothing written) if the store
   * refused it.
   */
  private boolean createTogether(List<Map.Entry<Key, Pending>> chunk) {
    if (chunk.size() < 2) {
      return false;
    }
    var writes = new ArrayList<Write>();
    for (var e : chunk) {
      writes.add(new Write.Create(fresh(e.getKey(), e.getValue())));
    }
    try {
      var created = api.commit(writes);
      for (int i = 0; i < chunk.size(); i++) {
        remember(chunk.get(i).getKey(), (Event) created.get(i));
      }
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  private static Event fresh(Key key, Pending p) {
    var spec =
        new EventSpec(
            key.involved(),
            key.type(),
            key.reason(),
            p.message,
            key.source(),
            p.times,
            p.first,
            p.last);
    var labels = new java.util.HashMap<String, String>();
    labels.put(LABEL_KIND, key.involved().kind());
    labels.put(LABEL_NAME, key.involved().name());
    if (!key.involved().uid().isEmpty()) {
      labels.put(LABEL_UID, key.involved().uid());
    }
    return new Event(ObjectMeta.named(nameOf(key)).withLabels(labels), spec, EventStatus.EMPTY);
  }

  private void write(Key key, Pending p) {
    Optional<Event> known;
    synchronized (this) {
      known = Optional.ofNullable(written.get(key));
    }
    if (known.isPresent()) {
      try {
        remember(
            key,
            api.update(
                known.get().withSpec(known.get().spec().repeated(p.times, p.last, p.message))));
        return;
      } catch (ApiException e) {
        if (!e.is(Reason.Conflict) && !e.is(Reason.NotFound)) {
          throw e;
        }
        // Changed or expired elsewhere: fall through and read it again.
      }
    }
    var name = nameOf(key);
    try {
      remember(key, api.create(fresh(key, p)));
    } catch (ApiException e) {
      if (!e.is(Reason.AlreadyExists)) {
        throw e;
      }
      var stored = api.get(Kinds.EVENT, name);
      if (stored.isEmpty()) {
        throw e; // expired between the two calls: the next flush creates it
      }
      var s = stored.get().spec();
      if (!new Key(s.involved(), s.type(), s.reason(), s.source()).equals(key)) {
        return; // another key with the same name: vanishingly rare, and an event is best effort
      }
      remember(key, api.update(stored.get().withSpec(s.repeated(p.times, p.last, p.message))));
    }
  }

  private synchronized void remember(Key key, Event event) {
    written.put(key, event);
    writes++;
  }

  /**
   * The event's name: the involved object's name (cut to 50 characters) and 8 hex digits of a
   * checksum of the key, so the same thing maps to the same object from any process.
   */
  public static String nameOf(
      InvolvedObject involved, EventType type, String reason, String source) {
    var crc = new CRC32();
    crc.update(
        String.join("\u0000", involved.kind(), involved.name(), type.name(), reason, source)
            .getBytes(StandardCharsets.UTF_8));
    if (!involved.uid().isEmpty()) {
      // Another incarnation of the name is another event (and a uid-less key keeps its old name).
      crc.update(("\u0000" + involved.uid()).getBytes(StandardCharsets.UTF_8));
    }
    var base = involved.name().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]", "-");
    base = base.length() > 50 ? base.substring(0, 50) : base;
    base = base.replaceAll("^-+|-+$", "");
    return (base.isEmpty() ? "event" : base) + "-" + String.format("%08x", crc.getValue());
  }

  private static String nameOf(Key key) {
    return nameOf(key.involved(), key.type(), key.reason(), key.source());
  }

  /**
   * Events dropped: new ones while {@link #MAX_PENDING} were waiting, and those the store refused
   * or kept failing.
   */
  public synchronized long dropped() {
    return dropped;
  }

  /** Event writes that reached the store. */
  public synchronized long writes() {
    return writes;
  }
}
