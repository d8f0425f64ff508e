package dev.quartermaster.api.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.meta.ApiObject;
import org.junit.jupiter.api.Test;

class ObjectValidatorTest {

  private static ApiObject parse(String yaml) {
    return ObjectCodec.fromYaml(yaml).getFirst();
  }

  /**
   * A ledger's entries admit or nominate through the queues it lists, and a violation names the
   * list as written; the entries are looked up in a set (the list has 10,000 queues in a large
   * cohort), so this is what keeps the rule itself.
   */
  @Test
  void aLedgerEntryThroughAQueueItDoesNotListIsNamed() {
    var l =
        parse(
            """
        kind: QuotaLedger
        metadata: {name: lab}
        spec:
          queues: [team-b, team-a]
          admitted:
            train: {uid: u-1, queue: team-a, usage: {gpu: 1}}
            stray: {uid: u-2, queue: team-c, usage: {gpu: 1}}
          nominated:
            urgent: {uid: u-3, queue: team-d, victims: [train]}
        """);
    assertThat(ObjectValidator.validate(l))
        .containsExactlyInAnyOrder(
            new Violation(
                "spec.admitted.stray.queue", "must be one of spec.queues [team-b, team-a]"),
            new Violation(
                "spec.nominated.urgent.queue", "must be one of spec.queues [team-b, team-a]"));
  }

  @Test
  void aNodeAllocationNamesTheBadEntry() {
    var a =
        parse(
            """
        kind: NodeAllocation
        metadata: {name: node-1}
        spec:
          devices:
            gpu-0: {claim: train-0-gpu, uid: 5b0c}
            GPU_1: {claim: train-1-gpu, uid: 7d1e}
            gpu-2: {claim: "../x"}
        """);
    assertThat(ObjectValidator.validate(a))
        .containsExactlyInAnyOrder(
            new Violation("spec.devices.GPU_1", "key: " + Names.DNS_LABEL_RULE),
            new Violation("spec.devices.gpu-2.claim", Names.DNS_LABEL_RULE),
            new Violation("spec.devices.gpu-2.uid", "required"));
  }

  /**
   * The gang ledger is one object, named gangs (the store's guard reads it by that name), and each
   * reservation sits under its own gang's key and names what a record entry would.
   */
  @Test
  void theGangLedgerIsOneObjectAndNamesTheBadReservation() {
    var l =
        parse(
            """
        kind: GangLedger
        metadata: {name: ledger-2}
        spec:
          reservations:
            job/workers:
              workload: other
              workloadUid: w-1
              gang: workers
              generation: 1
              members:
                - task: job-workers-0
                  taskUid: t-0
                  node: node-1
                  claims:
                    - {claim: job-workers-0-gpu, uid: c-0, devices: [{request: gpu, device: GPU_0}]}
                - task: job-workers-1
                  taskUid: t-1
                  node: node-1
                  claims: []
        """);
    assertThat(ObjectValidator.validate(l))
        .containsExactlyInAnyOrder(
            new Violation("metadata.name", "must be gangs: the cluster has one gang ledger"),
            new Violation(
                "spec.reservations.job/workers", "key must be <workload>/<gang>: other/workers"),
            new Violation(
                "spec.reservations.job/workers.members[0].claims[0].devices", Names.DNS_LABEL_RULE),
            new Violation(
                "spec.reservations.job/workers.members[1].claims", "must name at least one claim"));
  }

  /**
   * A node with 8 GPUs and 2,048 IMEX channels publishes them all in one slice; past the room for
   * them it is refused.
   */
  @Test
  void aSliceHasRoomForTwoThousandFortyEightChannels() {
    var devices = new java.util.ArrayList<dev.quartermaster.api.device.Device>();
    for (int i = 0; i < 8; i++) {
      devices.add(
          new dev.quartermaster.api.device.Device(
              "gpu-" + i, "gpu", java.util.Map.of("minor", "" + i), null, null));
    }
    for (int i = 0; i < 2048; i++) {
      devices.add(
          new dev.quartermaster.api.device.Device(
              "channel-" + i,
              "channel",
              null,
              dev.quartermaster.api.device.Device.Health.Healthy,
              null));
    }
    var slice =
        new dev.quartermaster.api.device.DeviceSlice(
            dev.quartermaster.api.meta.ObjectMeta.named("node-1"),
            new dev.quartermaster.api.device.DeviceSliceSpec("node-1", devices),
            null);
    assertThat(ObjectValidator.validate(slice)).isEmpty();

    while (devices.size() <= 8192) {
      devices.add(
          new dev.quartermaster.api.device.Device(
              "channel-" + devices.size(), "channel", null, null, null));
    }
    var tooMany =
        new dev.quartermaster.api.device.DeviceSlice(
            dev.quartermaster.api.meta.ObjectMeta.named("node-1"),
            new dev.quartermaster.api.device.DeviceSliceSpec("node-1", devices),
            null);
    assertThat(ObjectValidator.validate(tooMany))
        .containsExactly(new Violation("spec.devices", "must have at most 8192 entries"));
  }

  @Test
  void reportsEveryViolationWithItsPath() {
    var w =
        parse(
            """
        kind: Workload
        metadata: {name: train}
        spec:
          groups:
          - name: workers
            replicas: -1
            template: {command: [], runtime: docker}
          - name: workers
            replicas: 2
            template: {command: [x], env: {1BAD: x}}
        """);
    assertThat(ObjectValidator.validate(w))
        .contains(
            new Violation("spec.groups[0].replicas", "must be >= 0"),
            new Violation("spec.groups[0].template.command", "must not be empty"),
            new Violation("spec.groups[0].template.runtime", "must be one of exec, podman, noop"),
            new Violation("spec.groups[*].name[1]", "must be unique, 'workers' appears twice"));
    assertThat(ObjectValidator.validate(w))
        .anyMatch(v -> v.field().equals("spec.groups[1].template.env.1BAD"));
  }

  /** A finished workload's TTL, as a Kubernetes Job's: seconds, none below 0 nor over a year. */
  @Test
  void aWorkloadsTtlAfterFinishedIsSecondsFromZeroToAYear() {
    var workload =
        """
        kind: Workload
        metadata: {name: fin}
        spec:
          ttlSecondsAfterFinished: %s
          groups:
          - name: w
            replicas: 1
            template: {command: [sleep, "3"]}
        """;
    for (var ttl : new String[] {"0", "300", "31536000"}) {
      assertThat(ObjectValidator.validate(parse(workload.formatted(ttl)))).as(ttl).isEmpty();
    }
    assertThat(ObjectValidator.validate(parse(workload.formatted("-1"))))
        .containsExactly(new Violation("spec.ttlSecondsAfterFinished", "must be >= 0"));
    assertThat(ObjectValidator.validate(parse(workload.formatted("31536001"))))
        .containsExactly(
            new Violation("spec.ttlSecondsAfterFinished", "must be <= 31536000 (a year)"));
    // Not a whole number of seconds: refused when read, naming the field.
    assertThatThrownBy(() -> parse(workload.formatted("1.5")))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.is(Reason.BadRequest)).isTrue();
              assertThat(e.getMessage()).contains("ttlSecondsAfterFinished");
            });
    assertThat(
            ((dev.quartermaster.api.workload.Workload) parse(workload.formatted("300")))
                .spec()
                .ttlSecondsAfterFinished())
        .contains(300);
  }

  /** A deadline is a positive number of seconds, on a group's template and on a task alike. */
  @Test
  void anActiveDeadlineIsPositive() {
    var w =
        parse(
            """
        kind: Workload
        metadata: {name: train}
        spec:
          groups:
          - name: workers
            replicas: 1
            template: {command: [x], activeDeadlineSeconds: 0}
        """);
    var rule = "must be >= 1 (seconds a task may run before it is stopped; omit it for no limit)";
    assertThat(ObjectValidator.validate(w))
        .containsExactly(new Violation("spec.groups[0].template.activeDeadlineSeconds", rule));
    var t =
        parse("kind: Task\nmetadata: {name: t}\nspec: {command: [x], activeDeadlineSeconds: -5}\n");
    assertThat(ObjectValidator.validate(t))
        .containsExactly(new Violation("spec.activeDeadlineSeconds", rule));
    var fine =
        parse(
            """
        kind: Workload
        metadata: {name: train}
        spec:
          groups:
          - name: workers
            replicas: 1
            template: {command: [x], activeDeadlineSeconds: 30}
        """);
    assertThat(ObjectValidator.validate(fine)).isEmpty();
  }

  @Test
  void aComputeDomainSpansAtLeastOneNodeAndItsNameAndItsClaimsDomainCannotEscapeAPath() {
    for (var nodes : new int[] {0, -1, 4097}) {
      var d =
          parse(
              "kind: ComputeDomain\nmetadata: {name: nvlink-a}\nspec: {numNodes: " + nodes + "}\n");
      assertThat(ObjectValidator.validate(d))
          .as("numNodes %d", nodes)
          .containsExactly(
              new Violation(
                  "spec.numNodes", "must be from 1 to 4096 (the nodes the domain spans)"));
    }
    var escaping =
        parse("kind: ComputeDomain\nmetadata: {name: \"../etc\"}\nspec: {numNodes: 2}\n");
    assertThat(ObjectValidator.validate(escaping))
        .extracting(Violation::field)
        .containsExactly("metadata.name");
    var claim =
        parse(
            "kind: ResourceClaim\nmetadata: {name: c}\nspec: {requests: [], computeDomain: \"../x\"}\n");
    assertThat(ObjectValidator.validate(claim))
        .extracting(Violation::field)
        .contains("spec.computeDomain");
  }

  @Test
  void aDomainGivesEachTaskOneToSixtyFourChannelsOneByDefault() {
    var d = parse("kind: ComputeDomain\nmetadata: {name: nvlink-a}\nspec: {numNodes: 2}\n");
    assertThat(ObjectValidator.validate(d)).isEmpty();
    assertThat(((dev.quartermaster.api.domain.ComputeDomain) d).spec().channelsPerTask())
        .isEqualTo(1);
    for (var count : new int[] {0, -1, 65}) {
      var bad =
          parse(
              "kind: ComputeDomain\nmetadata: {name: nvlink-a}\nspec: {numNodes: 2, channelsPerTask: "
                  + count
                  + "}\n");
      assertThat(ObjectValidator.validate(bad))
          .as("channelsPerTask %d", count)
          .containsExactly(
              new Violation(
                  "spec.channelsPerTask",
                  "must be from 1 to 64 (the IMEX channels each task of the domain gets)"));
    }
  }

  @Test
  void aClaimForChannelsNeedsADomainAndAWorkloadInOneKeepsTheChannelClaimName() {
    var claim =
        parse(
            "kind: ResourceClaim\nmetadata: {name: c}\nspec: {requests: [{name: ch, deviceClassName: channel, count: 1}]}\n");
    assertThat(ObjectValidator.validate(claim))
        .containsExactly(
            new Violation(
                "spec.requests[0].deviceClassName",
                "asks for IMEX channels ('channel'), which need a compute domain: set spec.computeDomain, or the workload's"
                    + " spec.computeDomain"));
    var inDomain =
        parse(
            "kind: ResourceClaim\nmetadata: {name: c}\nspec: {computeDomain: d,"
                + " requests: [{name: ch, deviceClassName: channel, count: 1}]}\n");
    assertThat(ObjectValidator.validate(inDomain)).isEmpty();

    var workload =
        """
        kind: Workload
        metadata: {name: job}
        spec:
          %s
          groups:
            - name: w
              replicas: 1
              template: {command: [train]}
              claimTemplates:
                - name: channels
                  spec: {requests: [{name: ch, deviceClassName: channel, count: 1}]}
        """;
    assertThat(ObjectValidator.validate(parse(workload.formatted("computeDomain: d"))))
        .containsExactly(
            new Violation(
                "spec.groups[0].claimTemplates[0].name",
                "must not be 'channels' in a workload with a compute domain: each"
                    + " task's claim <task>-channels holds its IMEX channels"));
    assertThat(ObjectValidator.validate(parse(workload.formatted(""))))
        .extracting(Violation::field)
        .containsExactly("spec.groups[0].claimTemplates[0].spec.requests[0].deviceClassName");
  }

  @Test
  void pathLikeNamesAreRejected() {
    for (var name : new String[] {"../x", "a/b", "A", "-a", "a.b", "", "x".repeat(64)}) {
      var node = parse("kind: Node\nmetadata: {name: \"" + name + "\"}\n");
      assertThat(ObjectValidator.validate(node))
          .as(name)
          .extracting(Violation::field)
          .contains("metadata.name");
    }
    assertThat(ObjectValidator.validate(parse("kind: Node\nmetadata: {name: gpu-node-1}\n")))
        .isEmpty();
  }

  @Test
  void taskNamesThatWouldOverflowAreCaughtAtTheWorkload() {
    var w =
        parse(
            "kind: Workload\nmetadata: {name: "
                + "w".repeat(40)
                + "}\nspec:\n  groups:\n"
                + "  - {name: "
                + "g".repeat(20)
                + ", replicas: 100, template: {command: [x]}}\n");
    assertThat(ObjectValidator.validate(w))
        .extracting(Violation::field)
        .contains("spec.groups[0].name");
  }

  @Test
  void claimAndSelectorRules() {
    var c =
        parse(
            """
        kind: ResourceClaim
        metadata: {name: c}
        spec:
          requests:
          - {name: gpu, deviceClassName: gpu, count: 0, selectors: [{attribute: memory, operator: Gte, values: [lots]}]}
        """);
    assertThat(ObjectValidator.validate(c))
        .containsExactlyInAnyOrder(
            new Violation("spec.requests[0].count", "must be >= 1"),
            new Violation(
                "spec.requests[0].selectors[0].values", "must be exactly one number for Gte"));
  }

  @Test
  void labelsAndFinalizersAreQualifiedNames() {
    var n =
        parse(
            "kind: Node\nmetadata: {name: n, labels: {\"bad key!\": v, ok: \"bad value!\"}, finalizers: [\"no spaces\"]}\n");
    assertThat(ObjectValidator.validate(n))
        .extracting(Violation::field)
        .containsExactlyInAnyOrder(
            "metadata.labels.bad key!", "metadata.labels.ok", "metadata.finalizers[0]");
  }

  @Test
  void requireThrowsInvalidWithAllDetails() {
    var v = parse("kind: Volume\nmetadata: {name: v}\nspec: {plugin: \"\", capacityBytes: 0}\n");
    assertThatThrownBy(() -> ObjectValidator.require(v))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(Reason.Invalid);
              assertThat(e.error().code()).isEqualTo(422);
              assertThat(e.error().details()).hasSize(2);
            })
        .hasMessage("volume/v is invalid: spec.plugin: required; spec.capacityBytes: must be > 0");
  }

  @Test
  void aVolumeNamesEveryBadField() {
    var v =
        parse(
            """
        kind: Volume
        metadata: {name: data}
        spec:
          plugin: Hostpath_CSI
          capacityBytes: -1
          accessMode: MultiNodeReaderOnly
          parameters: {"bad key!": x, ok: "%s"}
        """
                .formatted("x".repeat(1025)));
    assertThat(ObjectValidator.validate(v))
        .containsExactlyInAnyOrder(
            new Violation("spec.plugin", Names.DNS_SUBDOMAIN_RULE),
            new Violation("spec.capacityBytes", "must be > 0"),
            new Violation("spec.parameters.bad key!", "must be a qualified name"),
            new Violation("spec.parameters.ok", "value must be at most 1024 characters"));
    assertThat(
            ObjectValidator.validate(
                parse(
                    """
        kind: Volume
        metadata: {name: data}
        spec: {plugin: hostpath.csi.quartermaster.dev, capacityBytes: 1048576, accessMode: MultiNodeReaderOnly,
               parameters: {csi.storage.k8s.io/fstype: ext4}}
        """)))
        .isEmpty();
  }

  @Test
  void volumeClaimTemplatesAreCheckedLikeClaimTemplates() {
    var w =
        parse(
            """
        kind: Workload
        metadata: {name: train}
        spec:
          groups:
          - name: workers
            replicas: 3
            template:
              command: [x]
              volumes: [dataset, {name: shared, mountAs: scratch}, {name: other, mountAs: dataset}]
            volumeClaimTemplates:
            - {name: scratch, spec: {plugin: hostpath.csi.quartermaster.dev, capacityBytes: 1}}
            - {name: scratch, spec: {plugin: hostpath.csi.quartermaster.dev, capacityBytes: 0}}
            - {name: Logs, spec: {plugin: hostpath.csi.quartermaster.dev, capacityBytes: 1, accessMode: MultiNodeReaderOnly}}
            - {name: %s, spec: {plugin: hostpath.csi.quartermaster.dev, capacityBytes: 1}}
        """
                .formatted("l".repeat(50)));
    var at = "spec.groups[0].volumeClaimTemplates";
    assertThat(ObjectValidator.validate(w))
        .containsExactlyInAnyOrder(
            new Violation(
                "spec.groups[0].template.volumes[2].mountAs",
                "must be unique, 'dataset' is also the mountAs of spec.groups[0].template.volumes[0]"),
            new Violation(at + "[*].name[1]", "must be unique, 'scratch' appears twice"),
            new Violation(at + "[*].name[2]", Names.DNS_LABEL_RULE),
            new Violation(
                at + "[0].name",
                "must not be the mountAs of template.volumes[1] ('scratch'): both would be seen by one name"),
            new Violation(
                at + "[1].name",
                "must not be the mountAs of template.volumes[1] ('scratch'): both would be seen by one name"),
            new Violation(at + "[1].spec.capacityBytes", "must be > 0"),
            new Violation(
                at + "[2].spec.accessMode",
                "must allow a writer (SingleNodeWriter, MultiNodeSingleWriter or MultiNodeMultiWriter): each task writes its own volume"),
            new Violation(
                at + "[3].name",
                "volume names 'train-workers-2-"
                    + "l".repeat(50)
                    + "' would exceed 63 characters"));
  }

  @Test
  void aTasksVolumesAreSeenByDistinctNames() {
    var t =
        parse(
            "kind: Task\nmetadata: {name: t}\nspec: {command: [x], volumes: [a, {name: b, mountAs: a}, {name: c, mountAs: \"../x\"}]}\n");
    assertThat(ObjectValidator.validate(t))
        .containsExactlyInAnyOrder(
            new Violation(
                "spec.volumes[1].mountAs",
                "must be unique, 'a' is also the mountAs of spec.volumes[0]"),
            new Violation("spec.volumes[2].mountAs", Names.DNS_LABEL_RULE));
  }

  /**
   * A client cannot create a task Succeeded, a volume already claimed or a claim already prepared.
   */
  @Test
  void aCreateCarriesNoStatusOfAKindWhoseStatusTheSystemWrites() {
    var rule = "must be empty on create: the system writes the status; leave it out";
    var task =
        parse(
            """
        kind: Task
        metadata: {name: t}
        spec: {command: [sh, -c, "true"]}
        status: {phase: Succeeded}
        """);
    assertThat(ObjectValidator.validateCreate(task)).contains(new Violation("status.phase", rule));
    var volume =
        parse(
            """
        kind: Volume
        metadata: {name: datasets}
        spec: {plugin: hostpath.csi.quartermaster.dev, capacityBytes: 1024, accessMode: MultiNodeReaderOnly}
        status:
          claims: [{task: x, taskUid: u, node: node-1, mode: Write}]
        """);
    assertThat(ObjectValidator.validateCreate(volume))
        .contains(new Violation("status.claims", rule));
    var claim =
        parse(
            """
        kind: ResourceClaim
        metadata: {name: c}
        spec: {requests: [{name: gpu, deviceClassName: gpu, count: 1}]}
        status:
          prepare: {node-1: {phase: Prepared}}
        """);
    assertThat(ObjectValidator.validateCreate(claim))
        .contains(new Violation("status.prepare", rule));
    // The same objects without status are fine; and updates (a status writer's own path) are not
    // judged here.
    for (var object : java.util.List.of(task, volume, claim)) {
      var bare = ObjectCodec.fromJson(stripStatus(ObjectCodec.toJson(object)));
      assertThat(ObjectValidator.validateCreate(bare)).as(bare.ref()).isEmpty();
      assertThat(ObjectValidator.validate(object)).as(object.ref()).isEmpty();
    }
    // A node's status is its agent's, which registers the node with it.
    var node =
        parse(
            """
        kind: Node
        metadata: {name: gpu-1}
        spec: {}
        status: {conditions: [{type: Ready, status: "True", reason: Heartbeat}]}
        """);
    assertThat(ObjectValidator.validateCreate(node)).isEmpty();
  }

  private static byte[] stripStatus(byte[] json) {
    try {
      var tree = (com.fasterxml.jackson.databind.node.ObjectNode) ObjectCodec.json().readTree(json);
      tree.remove("status");
      return ObjectCodec.json().writeValueAsBytes(tree);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
