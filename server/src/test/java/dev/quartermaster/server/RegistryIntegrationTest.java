package dev.quartermaster.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.quartermaster.api.allocation.DeviceHolder;
import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.allocation.NodeAllocationSpec;
import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.client.DeleteResult;
import dev.quartermaster.api.client.WatchScope;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.store.registry.ObjectRegistry;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The server over the real thing: {@link ObjectRegistry} on a {@link SqliteStore}. */
@Timeout(60)
@SuppressWarnings("try") // watch handles are closed by try-with-resources on purpose
class RegistryIntegrationTest {
  @TempDir Path dataDir;
  SqliteStore store;
  TestServer t;

  @BeforeEach
  void start() throws IOException {
    store = SqliteStore.open(dataDir.resolve("store.db"));
    var registry = new ObjectRegistry(store, new SystemEnv());
    t = TestServer.start(registry, dataDir, c -> c.withStoreRevision(store::currentRevision));
  }

  @AfterEach
  void stop() {
    t.close();
    store.close();
  }

  @Test
  void roundTripOverTheStore() {
    var created = t.client.create(Samples.workload("train", 2));
    assertThat(created.metadata().revision()).isEqualTo(store.currentRevision());
    assertThat(t.client.get(Kinds.WORKLOAD, "train")).contains(created);

    var updated = t.client.update(created.withSpec(Samples.workload("train", 4).spec()));
    assertThat(updated.metadata().generation()).isEqualTo(2);
    assertThat(t.client.list(Kinds.WORKLOAD).items()).containsExactly(updated);

    var stale = catchThrowableOfType(ApiException.class, () -> t.client.update(created));
    assertThat(stale.error().code()).isEqualTo(409);
    assertThat(t.client.get(Kinds.WORKLOAD, "train")).contains(updated);

    assertThat(t.client.delete(Kinds.WORKLOAD, "train")).isInstanceOf(DeleteResult.Deleted.class);
    assertThat(t.client.get(Kinds.WORKLOAD, "train")).isEmpty();
  }

  @Test
  void refusedRequestsLeaveTheStoreUntouched() {
    var before = store.currentRevision();

    var invalid =
        catchThrowableOfType(
            ApiException.class, () -> t.client.create(Samples.workload("train", -1)));
    assertThat(invalid.error().details())
        .contains(new Violation("spec.groups[0].replicas", "must be >= 0"));
    var pathLike =
        t.send(
            "PUT", "/api/v1/nodes/%2e%2e%2fx", "{\"kind\":\"Node\",\"metadata\":{\"name\":\"x\"}}");
    assertThat(pathLike.statusCode()).isEqualTo(422);
    var big =
        t.send(
            t.request("/api/v1/nodes")
                .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[2 << 20]))
                .build());
    assertThat(big.statusCode()).isEqualTo(413);

    assertThat(store.currentRevision()).isEqualTo(before);
  }

  /**
   * Issue 8, hole 7, as an operator with curl meets it: a PUT that would take a device from its
   * claim is a 409 naming it.
   */
  @Test
  void writesThatWouldDoubleAllocateAreConflictsNamingTheHolder() {
    var spec =
        new ResourceClaimSpec(
            List.of(new DeviceRequest("gpu", "gpu", 1, List.of())), Optional.empty());
    var holder = t.client.create(new ResourceClaim(ObjectMeta.named("train-0-gpu"), spec, null));
    var other = t.client.create(new ResourceClaim(ObjectMeta.named("train-5-gpu"), spec, null));
    var record =
        t.client.create(
            new NodeAllocation(
                ObjectMeta.named("node-1"),
                new NodeAllocationSpec(
                    Map.of("gpu-0", new DeviceHolder("train-0-gpu", holder.metadata().uid()))),
                null));
    var gpu0 = new Allocation("node-1", List.of(new Allocation.AllocatedDevice("gpu", "gpu-0")));
    t.client.updateStatus(holder.withStatus(holder.status().withAllocation(gpu0)));
    long before = store.currentRevision();

    var claimWrite =
        catchThrowableOfType(
            ApiException.class,
            () -> t.client.updateStatus(other.withStatus(other.status().withAllocation(gpu0))));
    var wipe =
        catchThrowableOfType(
            ApiException.class, () -> t.client.update(record.withSpec(NodeAllocationSpec.EMPTY)));

    assertThat(claimWrite.error().code()).isEqualTo(409);
    assertThat(claimWrite.getMessage())
        .contains(
            "device gpu-0 on node node-1 is held by claim train-0-gpu (uid "
                + holder.metadata().uid()
                + ")");
    assertThat(wipe.error().code()).isEqualTo(409);
    assertThat(wipe.getMessage())
        .contains("nodeallocation/node-1: spec.devices: device gpu-0 is held by claim train-0-gpu");
    assertThat(store.currentRevision()).isEqualTo(before);
  }

  @Test
  void watchDeliversStoreEventsInOrder() {
    var handler = new RecordingHandler<Node>();
    try (var watch = t.client.watch(Kinds.NODE, store.currentRevision(), handler)) {
      var a = t.client.create(Samples.node("a"));
      t.client.create(Samples.node("b"));
      t.client.delete(Kinds.NODE, "a");

      var events = List.of(handler.nextEvent(), handler.nextEvent(), handler.nextEvent());
      assertThat(events)
          .extracting(e -> e.type() + " " + e.object().metadata().name())
          .containsExactly("ADDED a", "ADDED b", "DELETED a");
      assertThat(events.getFirst().object()).isEqualTo(a);
      assertThat(events).extracting(e -> e.revision()).isSorted().doesNotHaveDuplicates();
    }
  }

  @Test
  void aNodeScopedWatchHearsOnlyThatNodesTasksAndABadNodeNameIs400() {
    var handler = new RecordingHandler<Task>();
    try (var watch =
        t.client.watch(Kinds.TASK, store.currentRevision(), WatchScope.node("a"), handler)) {
      t.client.create(task("on-b", "b"));
      t.client.create(task("on-a", "a"));
      t.client.create(task("nowhere", Optional.empty()));
      t.client.delete(Kinds.TASK, "on-b");
      t.client.create(task("on-a-too", "a"));

      assertThat(List.of(handler.nextEvent(), handler.nextEvent()))
          .extracting(e -> e.type() + " " + e.object().metadata().name())
          .containsExactly("ADDED on-a", "ADDED on-a-too");
    }
    var bad = t.send(t.request("/api/v1/tasks?watch=true&node=Not_A_Node").GET().build());
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.body()).contains("node").contains("DNS label");
  }

  private static Task task(String name, String node) {
    return task(name, Optional.of(node));
  }

  private static Task task(String name, Optional<String> node) {
    return new Task(
        ObjectMeta.named(name),
        new TaskSpec(
            node, List.of("true"), Map.of(), List.of(), List.of(), "exec", Optional.empty()),
        TaskStatus.EMPTY);
  }

  /**
   * Issue 30 item 11: a watch with a label selector and no revision starts with a bookmark naming
   * the revision it starts from (the store's, once its replay is done), for every kind: quiet kinds
   * too, which used to start at 0, and kinds whose history the selector hides.
   */
  @Test
  void theFirstBookmarkNamesTheRevisionTheStreamStartsFromForEveryKind() throws Exception {
    t.client.create(Samples.node("a"));
    long current = store.currentRevision();
    for (var kind : Kinds.ALL) {
      var request =
          t.request("/api/v1/" + kind.plural() + "?watch=true&labelSelector=nobody%3Dhere")
              .GET()
              .build();
      var response = t.raw.send(request, java.net.http.HttpResponse.BodyHandlers.ofInputStream());
      try (var body = response.body();
          var lines =
              new java.io.BufferedReader(
                  new java.io.InputStreamReader(body, java.nio.charset.StandardCharsets.UTF_8))) {
        var first = TestServer.json(lines.readLine());
        assertThat(first.get("type").asText()).as(kind.plural()).isEqualTo("BOOKMARK");
        assertThat(first.get("revision").asLong()).as(kind.plural()).isEqualTo(current);
      }
    }
  }

  @Test
  void watchFromACompactedRevisionIsGone() {
    t.client.create(Samples.node("a"));
    t.client.create(Samples.node("b"));
    var compactTo = store.currentRevision();
    store.compact(compactTo);

    var handler = new RecordingHandler<Node>();
    try (var watch = t.client.watch(Kinds.NODE, 0, handler)) {
      // Whether the store reports it before the server commits to a stream (410) or after (an
      // ERROR line) depends on the store's timing; the client hears "gone" either way.
      assertThat(handler.next()).isEqualTo(new RecordingHandler.Gone(compactTo));
    }
  }

  @Test
  void metricsShowTheStoreRevision() {
    t.client.create(Samples.node("a"));
    var metrics = t.send(HttpRequest.newBuilder(t.uri("/metrics")).build());
    assertThat(metrics.body())
        .containsPattern("qm_store_revision " + store.currentRevision() + "(\\.0)?\\n");
  }

  @Test
  void unknownObjectIs404FromTheRegistry() {
    var e = catchThrowableOfType(ApiException.class, () -> t.client.delete(Kinds.NODE, "ghost"));
    assertThat(e.reason()).isEqualTo(Reason.NotFound);
    assertThat(t.client.get(Kinds.NODE, "ghost")).isEmpty();
  }
}
