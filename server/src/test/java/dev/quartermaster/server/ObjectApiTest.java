package dev.quartermaster.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.quartermaster.api.client.DeleteResult;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.http.HttpWire;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.api.workload.WorkloadStatus;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Object operations over HTTP, through {@link dev.quartermaster.api.client.http.HttpApiClient} and
 * raw requests.
 */
class ObjectApiTest {
  @TempDir Path dataDir;
  InMemoryApiClient api;
  TestServer t;

  @BeforeEach
  void start() throws IOException {
    api = new InMemoryApiClient();
    t = TestServer.start(api, dataDir);
  }

  @AfterEach
  void stop() {
    t.close();
  }

  @Test
  void createGetListUpdateStatusDeleteRoundTrip() {
    var created = t.client.create(Samples.workload("train", 2));
    assertThat(created.metadata().revision()).isPositive();
    assertThat(created.metadata().uid()).isNotEmpty();
    assertThat(t.client.get(Kinds.WORKLOAD, "train")).contains(created);

    var list = t.client.list(Kinds.WORKLOAD);
    assertThat(list.items()).containsExactly(created);
    assertThat(list.revision()).isEqualTo(api.revision());

    var scaled = created.withSpec(Samples.workload("train", 3).spec());
    var updated = t.client.update(scaled);
    assertThat(updated.spec().groups().getFirst().replicas()).isEqualTo(3);
    assertThat(updated.metadata().generation()).isEqualTo(2);
    assertThat(updated.metadata().revision()).isGreaterThan(created.metadata().revision());

    var observed =
        t.client.updateStatus(updated.withStatus(new WorkloadStatus(2, List.of(), List.of())));
    assertThat(observed.status().observedGeneration()).isEqualTo(2);
    assertThat(t.client.get(Kinds.WORKLOAD, "train")).contains(observed);

    var deleted = t.client.delete(Kinds.WORKLOAD, "train");
    assertThat(deleted).isInstanceOf(DeleteResult.Deleted.class);
    assertThat(deleted.object().metadata().name()).isEqualTo("train");
    assertThat(t.client.get(Kinds.WORKLOAD, "train")).isEmpty();
  }

  @Test
  void listFiltersByLabelSelector() {
    t.client.create(Samples.node("a", Map.of("gpu", "h100")));
    t.client.create(Samples.node("b", Map.of("gpu", "a100")));
    var h100 = t.client.list(Kinds.NODE, LabelSelector.parse("gpu in (h100, b200)"));
    assertThat(h100.items()).extracting(n -> n.metadata().name()).containsExactly("a");

    var raw = t.send("GET", "/api/v1/nodes?labelSelector=gpu%3Da100", "");
    assertThat(raw.statusCode()).isEqualTo(200);
    var body = TestServer.json(raw.body());
    assertThat(body.get("kind").asText()).isEqualTo("List");
    assertThat(body.get("revision").asLong()).isEqualTo(api.revision());
    assertThat(body.get("items")).hasSize(1);
    assertThat(body.get("items").get(0).get("metadata").get("name").asText()).isEqualTo("b");
  }

  @Test
  void deleteWithFinalizersSaysTerminating() {
    var node = Samples.node("gpu-1");
    t.client.create(
        node.withMetadata(node.metadata().withFinalizers(List.of("quartermaster.dev/claims"))));

    var raw = t.send("DELETE", "/api/v1/nodes/gpu-1", "");
    assertThat(raw.statusCode()).isEqualTo(200);
    assertThat(raw.headers().firstValue(HttpWire.DELETE_HEADER)).contains(HttpWire.TERMINATING);

    var again = t.client.delete(Kinds.NODE, "gpu-1");
    assertThat(again).isInstanceOf(DeleteResult.Terminating.class);
    assertThat(again.object().metadata().deletedAt()).isPresent();
  }

  @Test
  void staleRevisionIsConflictAndChangesNothing() {
    var created = t.client.create(Samples.workload("train", 2));
    t.client.update(created.withSpec(Samples.workload("train", 3).spec()));
    var current = t.client.get(Kinds.WORKLOAD, "train").orElseThrow();
    var writes = api.writes();

    var e =
        catchThrowableOfType(
            ApiException.class,
            () -> t.client.update(created.withSpec(Samples.workload("train", 5).spec())));

    assertThat(e.error().code()).isEqualTo(409);
    assertThat(e.reason()).isEqualTo(Reason.Conflict);
    assertThat(api.writes()).isEqualTo(writes);
    assertThat(t.client.get(Kinds.WORKLOAD, "train")).contains(current);
  }

  @Test
  void errorsArriveExactlyAsTheApiClientRaisedThem() {
    var e =
        catchThrowableOfType(
            ApiException.class,
            () ->
                t.client.update(
                    Samples.node("ghost")
                        .withMetadata(Samples.node("ghost").metadata().withRevision(3))));
    assertThat(e.error())
        .isEqualTo(new ApiException(Reason.NotFound, "node/ghost not found").error());

    t.client.create(Samples.node("dup"));
    var dup = catchThrowableOfType(ApiException.class, () -> t.client.create(Samples.node("dup")));
    assertThat(dup.reason()).isEqualTo(Reason.AlreadyExists);
    assertThat(dup.error().code()).isEqualTo(409);
  }

  @Test
  void unknownFieldIs400NamingIt() {
    var body =
        """
        {"kind":"Workload","metadata":{"name":"train"},
         "spec":{"groups":[{"name":"workers","replicas":2,"replicaz":2,"template":{"command":["python"]}}]}}""";
    var response = t.send("POST", "/api/v1/workloads", body);

    assertThat(response.statusCode()).isEqualTo(400);
    var error = TestServer.error(response);
    assertThat(error.reason()).isEqualTo(Reason.BadRequest);
    assertThat(error.details()).extracting(Violation::field).contains("spec.groups[0].replicaz");
    assertThat(api.writes()).isZero();
  }

  @Test
  void malformedJsonIs400() {
    var response = t.send("POST", "/api/v1/nodes", "{\"kind\":\"Node\",");
    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(TestServer.error(response).message()).contains("not valid JSON at line 1");
    assertThat(api.writes()).isZero();
  }

  @Test
  void negativeReplicasIs422NamingTheField() {
    var e =
        catchThrowableOfType(
            ApiException.class, () -> t.client.create(Samples.workload("train", -1)));

    assertThat(e.error().code()).isEqualTo(422);
    assertThat(e.error().details())
        .contains(new Violation("spec.groups[0].replicas", "must be >= 0"));
    assertThat(api.writes()).isZero();
    assertThat(t.client.get(Kinds.WORKLOAD, "train")).isEmpty();
  }

  @Test
  void pathLikeNamesAreRefusedNamingMetadataName() {
    var viaClient =
        catchThrowableOfType(ApiException.class, () -> t.client.get(Kinds.NODE, "../x"));
    assertThat(viaClient.error().code()).isEqualTo(422);
    assertThat(viaClient.error().details())
        .extracting(Violation::field)
        .containsExactly("metadata.name");

    for (var path :
        List.of(
            "/api/v1/nodes/%2e%2e%2fx",
            "/api/v1/nodes/%2E%2E", "/api/v1/nodes/a%2Fb", "/api/v1/nodes/A")) {
      var response =
          t.send("PUT", path, "{\"kind\":\"Node\",\"metadata\":{\"name\":\"x\",\"revision\":1}}");
      assertThat(response.statusCode()).as(path).isEqualTo(422);
      assertThat(TestServer.error(response).details())
          .as(path)
          .extracting(Violation::field)
          .containsExactly("metadata.name");
    }

    var created =
        t.send("POST", "/api/v1/nodes", "{\"kind\":\"Node\",\"metadata\":{\"name\":\"../x\"}}");
    assertThat(created.statusCode()).isEqualTo(422);
    assertThat(TestServer.error(created).details())
        .extracting(Violation::field)
        .contains("metadata.name");
    assertThat(api.writes()).isZero();
  }

  @Test
  void urlAndBodyMustAgreeOnNameAndKind() {
    var node = t.client.create(Samples.node("a"));

    var renamed =
        t.send(
            "PUT",
            "/api/v1/nodes/b",
            "{\"kind\":\"Node\",\"metadata\":{\"name\":\"a\",\"revision\":"
                + node.metadata().revision()
                + "}}");
    assertThat(renamed.statusCode()).isEqualTo(422);
    assertThat(TestServer.error(renamed).details())
        .extracting(Violation::field)
        .containsExactly("metadata.name");

    var wrongKind = t.send("POST", "/api/v1/nodes", Samples.workloadJson("train", 1));
    assertThat(wrongKind.statusCode()).isEqualTo(400);
    assertThat(TestServer.error(wrongKind).details())
        .extracting(Violation::field)
        .containsExactly("kind");
    assertThat(api.writes()).isEqualTo(1);
  }

  @Test
  void updateStatusChecksOnlyNameAndRevision() {
    var node = t.client.create(Samples.node("gpu-1"));
    var status = new NodeStatus(List.of(), java.util.Optional.empty(), "boot-1", "0.1", List.of());
    var updated = t.client.updateStatus(node.withStatus(status));
    assertThat(updated.status().bootId()).isEqualTo("boot-1");

    var stale =
        catchThrowableOfType(
            ApiException.class, () -> t.client.updateStatus(node.withStatus(status)));
    assertThat(stale.reason()).isEqualTo(Reason.Conflict);
  }

  @Test
  void unknownKindIs404NamingIt() {
    var response = t.send("GET", "/api/v1/gizmos", "");
    assertThat(response.statusCode()).isEqualTo(404);
    assertThat(TestServer.error(response).message()).contains("gizmos").contains("nodes");

    assertThat(t.send("GET", "/api/v2/nodes", "").statusCode()).isEqualTo(404);
    assertThat(t.send("GET", "/api/v1/nodes/a/spec", "").statusCode()).isEqualTo(404);
  }

  @Test
  void unsupportedMethodIs405WithAllow() {
    var response = t.send("PATCH", "/api/v1/nodes/a", "{}");
    assertThat(response.statusCode()).isEqualTo(405);
    assertThat(response.headers().firstValue("Allow")).contains("GET, PUT, DELETE");
    assertThat(TestServer.error(response).reason()).isEqualTo(Reason.MethodNotAllowed);
    assertThat(t.send("DELETE", "/api/v1/nodes", "").statusCode()).isEqualTo(405);
    assertThat(t.send("GET", "/api/v1/nodes/a/status", "").statusCode()).isEqualTo(405);
  }

  @Test
  void unknownOrBadQueryParametersAre400NamingThem() {
    var typo = t.send("GET", "/api/v1/nodes?labelselector=a%3Db", "");
    assertThat(typo.statusCode()).isEqualTo(400);
    assertThat(TestServer.error(typo).details())
        .extracting(Violation::field)
        .containsExactly("labelselector");

    var selector = t.send("GET", "/api/v1/nodes?labelSelector=a%3D%3D%3Db", "");
    assertThat(selector.statusCode()).isEqualTo(400);
    assertThat(TestServer.error(selector).details())
        .extracting(Violation::field)
        .containsExactly("labelSelector");

    var revision = t.send("GET", "/api/v1/nodes?watch=true&revision=-3", "");
    assertThat(revision.statusCode()).isEqualTo(400);
    assertThat(TestServer.error(revision).details())
        .extracting(Violation::field)
        .containsExactly("revision");
  }

  /**
   * {@code ?as=table}: the kind's table as the server renders it, what {@code qm get} prints: the
   * HTTP client's table equals the one the object listing gives, and a typo in {@code as} is a 400
   * naming it, as for every other query parameter.
   */
  @Test
  void asTableAnswersTheKindsTableForAListingAndForOneObject() {
    t.client.create(Samples.node("a", Map.of("gpu", "h100")));
    t.client.create(Samples.node("b", Map.of("gpu", "a100")));
    var now = java.time.Instant.now();

    var served =
        t.client.table(
            Kinds.NODE, java.util.Optional.empty(), LabelSelector.parse("gpu=a100"), now);
    assertThat(served.view(false).headers())
        .containsExactly(
            "NAME", "READY", "DEVICES", "SCHEDULING", "GPUS", "MIG FREE", "SHARED FREE", "AGE");
    assertThat(served.view(true).headers()).contains("REVISION", "UID", "LABELS");
    assertThat(served.rows()).extracting(r -> r.getFirst()).containsExactly("b");
    var local =
        api.table(Kinds.NODE, java.util.Optional.empty(), LabelSelector.parse("gpu=a100"), now);
    assertThat(served.columns()).isEqualTo(local.columns());

    var one = t.client.table(Kinds.NODE, java.util.Optional.of("a"), LabelSelector.parse(""), now);
    assertThat(one.rows()).extracting(r -> r.getFirst()).containsExactly("a");
    var missing =
        catchThrowableOfType(
            ApiException.class,
            () ->
                t.client.table(
                    Kinds.NODE, java.util.Optional.of("nope"), LabelSelector.parse(""), now));
    assertThat(missing.error().reason()).isEqualTo(Reason.NotFound);
    assertThat(missing).hasMessageContaining("node/nope not found");

    var raw = t.send("GET", "/api/v1/nodes?as=table", "");
    assertThat(raw.statusCode()).isEqualTo(200);
    assertThat(TestServer.json(raw.body()).get("kind").asText()).isEqualTo("Table");
    var typo = t.send("GET", "/api/v1/nodes?as=tabel", "");
    assertThat(typo.statusCode()).isEqualTo(400);
    assertThat(TestServer.error(typo).details()).extracting(Violation::field).containsExactly("as");
    var itemTypo = t.send("GET", "/api/v1/nodes/a?as=yaml", "");
    assertThat(itemTypo.statusCode()).isEqualTo(400);
    var itemUnknown = t.send("GET", "/api/v1/nodes/a?pretty=true", "");
    assertThat(itemUnknown.statusCode()).isEqualTo(400);
  }

  /**
   * {@code ?as=mig} on a node: its MIG GPUs as the dashboard draws them, read as describe reads
   * them (the issue-46 contract: an H200's every slice published, one held).
   */
  @Test
  void asMigAnswersANodesMigGpusAsBoxes() {
    var h200 = dev.quartermaster.api.device.mig.MigGeometry.H200_141GB;
    t.client.create(
        new dev.quartermaster.api.node.Node(
            dev.quartermaster.api.meta.ObjectMeta.named("m"),
            dev.quartermaster.api.node.NodeSpec.EMPTY.withMig(
                "gpu-0", java.util.Optional.of(dev.quartermaster.api.node.MigMode.Dynamic)),
            null));
    t.client.create(
        new dev.quartermaster.api.device.DeviceSlice(
            dev.quartermaster.api.meta.ObjectMeta.named("m"),
            new dev.quartermaster.api.device.DeviceSliceSpec(
                "m", h200.devices("gpu-0"), java.util.List.of(h200.counterSet("gpu-0"))),
            null));
    var held = h200.devices("gpu-0").stream().filter(d -> d.name().endsWith("3g4m-4")).findFirst();
    t.client.create(
        new dev.quartermaster.api.allocation.NodeAllocation(
            dev.quartermaster.api.meta.ObjectMeta.named("m"),
            new dev.quartermaster.api.allocation.NodeAllocationSpec(
                Map.of(
                    held.orElseThrow().name(),
                    new dev.quartermaster.api.allocation.DeviceHolder("a", "uid-a"))),
            null));

    var raw = t.send("GET", "/api/v1/nodes/m?as=mig", "");

    assertThat(raw.statusCode()).as(raw.body()).isEqualTo(200);
    var gpu = TestServer.json(raw.body()).get("gpus").get(0);
    assertThat(gpu.get("gpu").asText()).isEqualTo("gpu-0");
    assertThat(gpu.get("published").asText()).isEqualTo("Dynamic");
    assertThat(gpu.get("freeCompute").asInt()).isEqualTo(4);
    var cells = gpu.get("cells");
    assertThat(cells).hasSize(5);
    assertThat(cells.get(4).get("profile").asText()).isEqualTo("3g.71gb");
    assertThat(cells.get(4).get("span").asInt()).isEqualTo(4);
    assertThat(cells.get(4).get("holder").asText()).isEqualTo("claim/a");
    assertThat(cells.get(0).has("profile")).as("an empty position, its profile left out").isFalse();
    assertThat(t.send("GET", "/api/v1/nodes/none?as=mig", "").statusCode()).isEqualTo(404);
  }
}
