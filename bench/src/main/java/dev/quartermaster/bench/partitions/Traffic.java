package dev.quartermaster.bench.partitions;

import dev.quartermaster.api.client.http.HttpApiClient;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Workload;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * The workload generator: creates, deletes and reads workloads of one-GPU workers (some of them
 * gangs; two thirds of them in the quota queues {@link #QUEUES}, the rest in {@code default})
 * through both servers while faults happen, and keeps what each acknowledged answer promises. A
 * write answered 2xx (or 404 to a delete, 409 to a create) is acknowledged; a 4xx is a refusal that
 * changed nothing; a timeout, a connection lost or a 5xx may or may not have landed. A read that
 * contradicts an acknowledged write is an anomaly.
 */
final class Traffic {
  /** What the acknowledged answers say a workload is. */
  enum Known {
    PRESENT,
    ABSENT,
    UNKNOWN
  }

  /**
   * A live workload's shape: how many workers it must end with, its queue, and the volume its one
   * worker writes, if any.
   */
  record Shape(int replicas, boolean gang, String queue, Optional<String> volume) {}

  /**
   * The volumes workers write, one live workload each at most (a second writer would wait as long
   * as the first lives): a volume goes from node to node as its writers come and go, and I5 is
   * judged at every revision. Single-node writers, the hostpath plugin's writable mode.
   */
  static final Map<String, String> VOLUMES =
      Map.of("vol-a", "SingleNodeWriter", "vol-b", "SingleNodeWriter");

  /** The volumes as a manifest, applied when the lab starts (its plugins running). */
  static String volumesManifest() {
    var out = new StringBuilder();
    new TreeMap<>(VOLUMES)
        .forEach(
            (name, mode) ->
                out.append("kind: Volume\nmetadata: {name: ")
                    .append(name)
                    .append("}\nspec: {plugin: hostpath.csi.quartermaster.dev, capacityBytes: ")
                    .append(10 << 20)
                    .append(", accessMode: ")
                    .append(mode)
                    .append("}\n---\n"));
    return out.toString();
  }

  /**
   * The quota queues, each with {@link #QUOTA} GPUs in one cohort ({@link #COHORT}) that lends what
   * a queue does not use: together they may hold 8 of the lab's 12 GPUs, so Q1 binds while the
   * default queue's workloads (at most {@link #MOST_DEFAULT} live, up to 4 GPUs) always fit beside
   * them once everything is healed.
   */
  static final List<String> QUEUES = List.of("team-a", "team-b");

  static final String COHORT = "lab";
  static final int QUOTA = 4;
  private static final int MOST_LIVE = 8;
  private static final int MOST_DEFAULT = 2;

  /** The queues as a manifest, applied when the lab starts. */
  static String queuesManifest() {
    var out = new StringBuilder();
    for (var q : QUEUES) {
      out.append("kind: Queue\nmetadata: {name: ")
          .append(q)
          .append("}\nspec: {cohort: ")
          .append(COHORT)
          .append(", quota: {gpu: ")
          .append(QUOTA)
          .append("}}\n---\n");
    }
    return out.toString();
  }

  private final HttpApiClient client;
  private final List<HttpApiClient> eachServer;
  private final Consumer<String> history;
  private final Map<String, Known> known = new TreeMap<>();

  /**
   * The workloads whose last delete has an unknown outcome: it may land at any time yet (a request
   * answered 503 by a server whose etcd call was still in flight did, 3 s later, in seed 80).
   */
  private final java.util.Set<String> deletesInFlight = new java.util.TreeSet<>();

  private final Map<String, Shape> shapes = new TreeMap<>();
  private final List<String> anomalies = new ArrayList<>();
  private int created;
  private int acknowledged;
  private int operations;

  /**
   * @param client a client of every server, going on to the next when one cannot be reached
   * @param eachServer a client of each server alone: reads and writes also go to one replica, so a
   *     replica that answers from a stale view is seen
   */
  Traffic(HttpApiClient client, List<HttpApiClient> eachServer, Consumer<String> history) {
    this.client = client;
    this.eachServer = List.copyOf(eachServer);
    this.history = history;
  }

  /** Half the calls through the client of every server, half to one server picked at random. */
  private HttpApiClient pick(Random random) {
    return eachServer.isEmpty() || random.nextBoolean()
        ? client
        : eachServer.get(random.nextInt(eachServer.size()));
  }

  /** Runs operations until {@code untilNanos}, one every 1 to 3 s. */
  void run(Random random, long untilNanos) throws InterruptedException {
    while (System.nanoTime() < untilNanos) {
      step(random);
      Thread.sleep(1_000 + random.nextInt(2_000));
    }
  }

  /** Two creates at once, as many as there is room for: work for the controllers right now. */
  synchronized void burst(Random random) {
    for (int i = 0; i < 2; i++) {
      create(random);
    }
  }

  /** A new workload, of a shape drawn from {@code random}, if fewer than the most are live. */
  private void create(Random random) {
    var live = live();
    if (live.size() >= MOST_LIVE) {
      return;
    }
    long liveDefault = live.stream().filter(n -> shapes.get(n).queue().equals("default")).count();
    int inQueue = random.nextInt(3);
    var queue = inQueue < 2 ? QUEUES.get(inQueue) : "default";
    if (queue.equals("default") && liveDefault >= MOST_DEFAULT) {
      queue = QUEUES.get(random.nextInt(QUEUES.size()));
    }
    var held =
        live.stream().flatMap(n -> shapes.get(n).volume().stream()).collect(Collectors.toSet());
    var free = new TreeMap<>(VOLUMES).keySet().stream().filter(v -> !held.contains(v)).toList();
    var shape =
        !free.isEmpty() && random.nextInt(3) == 0
            ? new Shape(1, false, queue, Optional.of(free.get(random.nextInt(free.size()))))
            : new Shape(1 + random.nextInt(2), random.nextInt(3) == 0, queue, Optional.empty());
    create(pick(random), "w" + (created++), shape);
  }

  /** The workloads not known to be gone. */
  private List<String> live() {
    return known.entrySet().stream()
        .filter(e -> e.getValue() != Known.ABSENT)
        .map(Map.Entry::getKey)
        .toList();
  }

  private synchronized void step(Random random) {
    var live = live();
    int choice = random.nextInt(10);
    if (choice < 4 && live.size() < MOST_LIVE) {
      create(random);
    } else if (choice < 6 && !live.isEmpty()) {
      delete(pick(random), live.get(random.nextInt(live.size())));
    } else if (!known.isEmpty()) {
      var names = List.copyOf(known.keySet());
      read(pick(random), names.get(random.nextInt(names.size())));
    }
  }

  private void create(HttpApiClient client, String name, Shape shape) {
    operations++;
    shapes.put(name, shape);
    try {
      client.exchange("POST", "workloads", Optional.of(manifest(name, shape)));
      known.put(name, Known.PRESENT);
      acknowledged++;
      history.accept("create " + name + " " + shape + " via " + via(client) + ": ok");
    } catch (ApiException e) {
      if (e.reason() == dev.quartermaster.api.error.ApiError.Reason.AlreadyExists) {
        known.put(name, Known.PRESENT);
        acknowledged++;
      } else if (e.reason().code() < 500 && e.reason().code() != 408) {
        known.putIfAbsent(name, Known.ABSENT);
      } else {
        known.put(name, Known.UNKNOWN);
      }
      history.accept("create " + name + ": " + e.reason() + " " + e.getMessage());
    } catch (RuntimeException e) {
      known.put(name, Known.UNKNOWN);
      history.accept("create " + name + ": unknown, " + e.getMessage());
    }
  }

  private void delete(HttpApiClient client, String name) {
    operations++;
    var before = known.get(name);
    try {
      client.exchange("DELETE", "workloads/" + name, Optional.empty());
      deletesInFlight.remove(name);
      known.put(name, Known.ABSENT);
      acknowledged++;
      history.accept("delete " + name + " via " + via(client) + ": ok");
    } catch (ApiException e) {
      if (e.reason() == dev.quartermaster.api.error.ApiError.Reason.NotFound) {
        if (before == Known.PRESENT) {
          anomalies.add("delete " + name + " answered 404 though its create was acknowledged");
        }
        deletesInFlight.remove(name);
        known.put(name, Known.ABSENT);
        acknowledged++;
      } else if (e.reason().code() >= 500 || e.reason().code() == 408) {
        deletesInFlight.add(name);
        known.put(name, Known.UNKNOWN);
      }
      history.accept("delete " + name + ": " + e.reason() + " " + e.getMessage());
    } catch (RuntimeException e) {
      deletesInFlight.add(name);
      known.put(name, Known.UNKNOWN);
      history.accept("delete " + name + ": unknown, " + e.getMessage());
    }
  }

  private void read(HttpApiClient client, String name) {
    operations++;
    try {
      var found = client.get(Kinds.WORKLOAD, name);
      var expected = known.get(name);
      if (expected == Known.PRESENT && found.isEmpty()) {
        anomalies.add(
            "read "
                + name
                + " via "
                + via(client)
                + ": not found, though its create was acknowledged");
      } else if (expected == Known.ABSENT
          && found.isPresent()
          && found.get().metadata().deletedAt().isEmpty()) {
        anomalies.add(
            "read " + name + ": found and not being deleted, though its delete was acknowledged");
      }
      history.accept(
          "read "
              + name
              + " via "
              + via(client)
              + ": "
              + (found.isPresent() ? "found" : "not found"));
    } catch (RuntimeException e) {
      history.accept("read " + name + ": failed, " + e.getMessage());
    }
  }

  /** Takes over what another generator knows (the workloads live on from schedule to schedule). */
  synchronized void adopt(Traffic other) {
    synchronized (other) {
      known.putAll(other.known);
      deletesInFlight.clear();
      deletesInFlight.addAll(other.deletesInFlight);
      shapes.putAll(other.shapes);
      created = Math.max(created, other.created);
    }
  }

  private String via(HttpApiClient used) {
    return used == client ? "any server" : used.server().getHost();
  }

  synchronized Map<String, Known> known() {
    return Map.copyOf(known);
  }

  synchronized Map<String, Shape> shapes() {
    return Map.copyOf(shapes);
  }

  synchronized List<String> anomalies() {
    return List.copyOf(anomalies);
  }

  synchronized int operations() {
    return operations;
  }

  synchronized int acknowledged() {
    return acknowledged;
  }

  /**
   * Settles what a write of unknown outcome did, from what is there once all is healed, where what
   * is there says: a delete landed once the workload is being deleted or gone, a create once it is
   * there. Until then the write may still land (an unknown outcome is concurrent with everything
   * after it), so the workload stays unknown: neither kept to converge nor taken as lost.
   */
  synchronized void settle(String name, Optional<Workload> found) {
    if (known.get(name) != Known.UNKNOWN) {
      return;
    }
    if (deletesInFlight.contains(name)) {
      if (found.isEmpty() || found.get().metadata().deletedAt().isPresent()) {
        deletesInFlight.remove(name);
        known.put(name, Known.ABSENT);
      }
    } else if (found.isPresent()) {
      known.put(name, Known.PRESENT);
    }
  }

  private static byte[] manifest(String name, Shape shape) {
    var gang =
        shape.gang()
            ? "\"gang\":{\"minMember\":"
                + shape.replicas()
                + ",\"onMemberFailure\":\"RestartGang\"},"
            : "";
    var json =
        "{\"kind\":\"Workload\",\"metadata\":{\"name\":\""
            + name
            + "\"},\"spec\":{"
            + (shape.queue().equals("default") ? "" : "\"queue\":\"" + shape.queue() + "\",")
            + "\"groups\":[{\"name\":\"workers\",\"replicas\":"
            + shape.replicas()
            + ","
            + gang
            // A worker takes 2 s to end after SIGTERM, as a job that saves a checkpoint does: its
            // GPU is in use until then, which an agent that frees it on the store's word misses.
            + "\"template\":{\"command\":[\"sh\",\"-c\","
            + (shape.volume().isPresent() ? "\"echo held >> $QM_VOLUME_DATA/log; " : "\"")
            + "trap 'sleep 2; exit 0' TERM; while true; do sleep 1; done\"]"
            + shape
                .volume()
                .map(v -> ",\"volumes\":[{\"name\":\"" + v + "\",\"mountAs\":\"data\"}]")
                .orElse("")
            + "},"
            + "\"claimTemplates\":[{\"name\":\"gpu\",\"spec\":{\"requests\":[{\"name\":\"gpu\","
            + "\"deviceClassName\":\"gpu\",\"count\":1}]}}]}]}}";
    return json.getBytes(StandardCharsets.UTF_8);
  }
}
