package dev.quartermaster.api.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.allocation.DeviceHolder;
import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.allocation.NodeAllocationSpec;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.volume.VolumeSpec;
import dev.quartermaster.api.volume.VolumeUse;
import dev.quartermaster.api.workload.DeviceLossPolicy;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.VolumeClaimTemplate;
import dev.quartermaster.api.workload.VolumeRetention;
import dev.quartermaster.api.workload.Workload;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ObjectCodecTest {
  static final String WORKLOAD =
      """
      kind: Workload
      metadata:
        name: train
        labels: {team: vision}
      spec:
        groups:
        - name: head
          replicas: 1
          template: {command: [python, head.py]}
        - name: workers
          replicas: 4
          template: {command: [python, worker.py], env: {NCCL_DEBUG: INFO}}
          claimTemplates:
          - name: gpu
            spec: {requests: [{name: gpu, deviceClassName: gpu, count: 1}]}
      """;

  @Test
  void yamlAndJsonRoundTripExactly() {
    var objects = ObjectCodec.fromYaml(WORKLOAD);
    assertThat(objects).hasSize(1);
    var w = (Workload) objects.getFirst();
    assertThat(w.spec().groups().get(1).replicas()).isEqualTo(4);
    assertThat(ObjectCodec.fromJson(ObjectCodec.toJson(w))).isEqualTo(w);
    assertThat(ObjectCodec.fromYaml(ObjectCodec.toYaml(w))).containsExactly(w);
    assertThat(new String(ObjectCodec.toJson(w), StandardCharsets.UTF_8))
        .startsWith("{\"kind\":\"Workload\"");
  }

  /**
   * A node's record with 2,048 IMEX channels held: a map, two short strings an entry, far below the
   * 1 MiB body limit.
   */
  @Test
  void aNodeAllocationOfTwoThousandChannelsStaysCompactAndRoundTrips() {
    var devices = new java.util.HashMap<String, DeviceHolder>();
    for (int i = 0; i < 2048; i++) {
      devices.put(
          "channel-" + i,
          new DeviceHolder(
              "training-workers-" + (i / 64) + "-channels",
              java.util
                  .UUID
                  .nameUUIDFromBytes(("claim-" + i / 64).getBytes(StandardCharsets.UTF_8))
                  .toString()));
    }
    var record =
        new NodeAllocation(ObjectMeta.named("node-1"), new NodeAllocationSpec(devices), null);

    var json = ObjectCodec.toJson(record);

    assertThat(json.length).as("bytes per entry").isLessThan(2048 * 110);
    assertThat(ObjectCodec.fromJson(json, Kinds.NODE_ALLOCATION)).isEqualTo(record);
  }

  @Test
  void multiDocumentYamlSkipsEmptyDocuments() {
    var text = "---\n" + WORKLOAD + "---\n---\nkind: Node\nmetadata: {name: n1}\n";
    assertThat(ObjectCodec.fromYaml(text))
        .extracting(o -> o.kind().name())
        .containsExactly("Workload", "Node");
  }

  /** Issue 48, item 8: kubectl users write apiVersion in every manifest; ours is taken. */
  @Test
  void aManifestMayNameOurApiVersionAndNoOther() {
    assertThat(
            ObjectCodec.fromYaml(
                "apiVersion: quartermaster.dev/v1\nkind: Node\nmetadata: {name: n1}\n"))
        .extracting(o -> o.metadata().name())
        .containsExactly("n1");
    assertThat(violation("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"))
        .isEqualTo(new Violation("apiVersion", "must be quartermaster.dev/v1 (or left out)"));
  }

  @Test
  void unknownFieldNamesItsPath() {
    var bad =
        WORKLOAD.replace(
            "replicas: 4",
            "replicas: 4\n  replicaz: 5".indent(2).stripTrailing().replaceFirst("^\\s+", ""));
    assertThat(violation(bad)).isEqualTo(new Violation("spec.groups[1].replicaz", "unknown field"));
  }

  @Test
  void missingRequiredCreatorPropertyIsNamed() {
    var bad = WORKLOAD.replace("    replicas: 4\n", "");
    assertThat(violation(bad)).isEqualTo(new Violation("spec.groups[1].replicas", "required"));
  }

  @Test
  void wrongTypesAndEnumsAreNamed() {
    assertThat(violation(WORKLOAD.replace("replicas: 4", "replicas: four")).field())
        .isEqualTo("spec.groups[1].replicas");
    assertThat(violation(WORKLOAD.replace("replicas: 4", "replicas: four")).rule())
        .isEqualTo("must be an integer");
    var vol =
        "kind: Volume\nmetadata: {name: v}\nspec: {plugin: p, capacityBytes: 1, accessMode: Sometimes}\n";
    assertThat(violation(vol).field()).isEqualTo("spec.accessMode");
    assertThat(violation(vol).rule()).startsWith("must be one of [SingleNodeWriter");
  }

  @Test
  void onDeviceLossRoundTripsDefaultsToContinueAndNamesABadValue() {
    var stop =
        WORKLOAD.replace(
            "template: {command: [python, worker.py]",
            "template: {onDeviceLoss: Stop, command: [python, worker.py]");
    var w = (Workload) ObjectCodec.fromYaml(stop).getFirst();
    assertThat(w.spec().groups().get(1).template().onDeviceLoss()).isEqualTo(DeviceLossPolicy.Stop);
    assertThat(w.spec().groups().get(0).template().onDeviceLoss())
        .isEqualTo(DeviceLossPolicy.Continue);
    assertThat(ObjectCodec.fromJson(ObjectCodec.toJson(w))).isEqualTo(w);
    assertThat(ObjectCodec.fromYaml(ObjectCodec.toYaml(w))).containsExactly(w);
    var task = "kind: Task\nmetadata: {name: t}\nspec: {command: [x], onDeviceLoss: Stop}\n";
    var t = (Task) ObjectCodec.fromYaml(task).getFirst();
    assertThat(t.spec().onDeviceLoss()).isEqualTo(DeviceLossPolicy.Stop);
    assertThat(ObjectCodec.fromJson(ObjectCodec.toJson(t))).isEqualTo(t);
    var bad = violation(stop.replace("onDeviceLoss: Stop", "onDeviceLoss: Pause"));
    assertThat(bad.field()).isEqualTo("spec.groups[1].template.onDeviceLoss");
    assertThat(bad.rule()).isEqualTo("must be one of [Continue, Stop]");
  }

  @Test
  void kindIsRequiredAndMustBeKnown() {
    assertThat(violation("metadata: {name: x}\n").field()).isEqualTo("kind");
    assertThat(violation("kind: Pod\nmetadata: {name: x}\n").rule())
        .startsWith("unknown kind 'Pod'");
  }

  @Test
  void documentNumberPrefixesMultiDocumentErrors() {
    assertThatThrownBy(
            () ->
                ObjectCodec.fromYaml(
                    "kind: Node\nmetadata: {name: a}\n---\nkind: Node\nbogus: 1\n"))
        .isInstanceOf(ApiException.class)
        .hasMessageStartingWith("document 2: bogus: unknown field");
  }

  @Test
  void requireKindRejectsAnotherKind() {
    var json = "{\"kind\":\"Node\",\"metadata\":{\"name\":\"n\"}}".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> ObjectCodec.fromJson(json, Kinds.TASK))
        .isInstanceOfSatisfying(
            ApiException.class, e -> assertThat(e.reason()).isEqualTo(Reason.BadRequest))
        .hasMessageContaining("kind: must be Task");
  }

  @Test
  void malformedJsonIsABadRequest() {
    assertThatThrownBy(() -> ObjectCodec.fromJson("{\"kind\":".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOfSatisfying(
            ApiException.class, e -> assertThat(e.reason()).isEqualTo(Reason.BadRequest))
        .hasMessageContaining("not valid JSON at line 1, column 9");
  }

  @Test
  void volumeUsesTakeABareNameOrAnObjectAndVolumeClaimTemplatesRoundTrip() {
    var yaml =
        """
        kind: Workload
        metadata: {name: train}
        spec:
          groups:
          - name: workers
            replicas: 2
            volumeRetention: Retain
            template:
              command: [x]
              volumes: [data, {name: dataset, readOnly: true}, {name: logs-1, mountAs: logs}]
            volumeClaimTemplates:
            - name: scratch
              spec: {plugin: hostpath.csi.quartermaster.dev, capacityBytes: 104857600, accessMode: SingleNodeWriter}
        """;
    var w = (Workload) ObjectCodec.fromYaml(yaml).getFirst();
    var group = w.spec().groups().getFirst();
    assertThat(group.template().volumes())
        .containsExactly(
            VolumeUse.writer("data"),
            VolumeUse.reader("dataset"),
            new VolumeUse("logs-1", false, "logs"));
    assertThat(group.volumeRetention()).isEqualTo(VolumeRetention.Retain);
    assertThat(group.volumeClaimTemplates())
        .containsExactly(
            new VolumeClaimTemplate(
                "scratch",
                new VolumeSpec(
                    "hostpath.csi.quartermaster.dev",
                    104857600,
                    VolumeSpec.AccessMode.SingleNodeWriter,
                    Map.of())));
    assertThat(ObjectCodec.fromJson(ObjectCodec.toJson(w))).isEqualTo(w);
    assertThat(ObjectCodec.fromYaml(ObjectCodec.toYaml(w))).containsExactly(w);
    var json =
        "{\"kind\":\"Task\",\"metadata\":{\"name\":\"t\"},\"spec\":{\"command\":[\"x\"],"
            + "\"volumes\":[\"data\",{\"name\":\"dataset\",\"readOnly\":true}]}}";
    var t = (Task) ObjectCodec.fromJson(json.getBytes(StandardCharsets.UTF_8));
    assertThat(t.spec().volumes())
        .containsExactly(VolumeUse.writer("data"), VolumeUse.reader("dataset"));
    assertThat(violation(yaml.replace("readOnly: true", "readOnly: maybe")).field())
        .isEqualTo("spec.groups[0].template.volumes[1].readOnly");
  }

  private static Violation violation(String yaml) {
    try {
      ObjectCodec.fromYaml(yaml);
    } catch (ApiException e) {
      assertThat(e.error().details()).hasSize(1);
      return e.error().details().getFirst();
    }
    throw new AssertionError("expected a decode error for:\n" + yaml);
  }
}
