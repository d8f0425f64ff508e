package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.quartermaster.api.allocation.DeviceHolder;
import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.Allocation.AllocatedDevice;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.api.node.PluginInstance;
import dev.quartermaster.api.node.PluginRole;
import dev.quartermaster.cli.apply.ManifestReader;
import dev.quartermaster.server.ApiServer;
import dev.quartermaster.store.registry.ObjectRegistry;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commands as a user runs them, in-process, against a real server: SQLite store, object
 * registry and HTTP API on a free port, reached over HTTP with the admin token.
 */
class CliEndToEndTest {
  @TempDir Path dir;

  private CliServer cli;
  private SqliteStore store;
  private ObjectRegistry registry;
  private ApiServer server;
  private CliEnvironment env;

  @BeforeEach
  void startServer() throws IOException {
    cli = CliServer.start(dir);
    store = cli.store;
    registry = cli.registry;
    server = cli.server;
    env = cli.env;
  }

  @AfterEach
  void stopServer() {
    cli.close();
  }

  private CliServer.Run run(String... args) {
    return cli.run(args);
  }

  private CliServer.Run runWithStdin(String stdin, String... args) {
    return cli.runWithStdin(stdin, args);
  }

  private static CliServer.Run runWith(CliEnvironment env, String... args) {
    return CliServer.runWith(env, args);
  }

  /** A refused token names the file it came from, and which setting chose that file. */
  @Test
  void anInvalidTokenNamesItsFile(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp)
      throws java.io.IOException {
    var stale = tmp.resolve("stale.token");
    java.nio.file.Files.writeString(stale, "not-the-token\n");
    var refused = run("get", "nodes", "--token-file", stale.toString());
    assertThat(refused.exit()).isNotZero();
    assertThat(refused.err())
        .contains("error: invalid bearer token")
        .contains("the token presented is from " + stale + " (--token-file)");
  }

  @Test
  void theHelpListsTheClientOptions() {
    var help = run("--help");
    assertThat(help.out())
        .contains("Client options, for every command that talks to a cluster:")
        .contains("--server URL[,URL...]")
        .contains("--token-file FILE")
        .contains("--ca-file FILE")
        .contains("--context NAME");
    assertThat(help.out().lines()).allMatch(l -> l.length() <= 80);
  }

  @Test
  void appliedExamplesComeBackFromGetUnchanged() {
    var manifests = new ManifestReader(env).read(List.of("examples", "docs/api-samples"));

    var apply = run("apply", "-f", "examples/", "-f", "docs/api-samples/");

    assertThat(apply.exit()).as(apply.err()).isZero();
    assertThat(apply.outLines()).hasSize(manifests.size()).allMatch(l -> l.endsWith(" created"));
    for (var m : manifests) {
      var object = m.object();
      var get = run("get", object.kind().singular(), object.metadata().name(), "-o", "yaml");
      assertThat(get.exit()).as(get.err()).isZero();
      var back = ObjectCodec.fromYaml(get.out());
      assertThat(back).hasSize(1);
      assertThat(back.getFirst().spec()).as(m.where()).isEqualTo(object.spec());
      assertThat(back.getFirst().metadata().labels())
          .as(m.where())
          .isEqualTo(object.metadata().labels());
      assertThat(back.getFirst().metadata().uid()).isNotEmpty();
    }
  }

  @Test
  void anAdminCreatesListsAndRevokesNodeTokens() throws IOException {
    var created = run("token", "create", "--node", "gpu-7");
    assertThat(created.exit()).as(created.err()).isZero();
    assertThat(created.outLines()).hasSize(2);
    assertThat(created.outLines().getFirst())
        .matches(
            "token/[0-9a-f]{16} created for node gpu-7 \\(shown this once;"
                + " give it to that node's agent: qm agent --token-file FILE\\):");
    var token = created.outLines().get(1);
    var id = token.split("\\.")[1];

    var list = run("token", "list");
    assertThat(list.outLines()).hasSize(2);
    assertThat(list.outLines().get(0)).startsWith("ID").contains("NODE").contains("CREATED");
    assertThat(list.outLines().get(1))
        .startsWith(id)
        .contains("gpu-7")
        .doesNotContain(token.substring(20));

    // With its token, the node's agent writes its own Node and nothing else; no token management
    // either.
    var tokenFile = dir.resolve("gpu-7.token");
    Files.writeString(tokenFile, token);
    var asNode = run("--debug", "token", "list", "--token-file", tokenFile.toString());
    assertThat(asNode.exit()).isEqualTo(1);
    assertThat(asNode.err()).contains("only an admin");

    assertThat(run("token", "revoke", id).out())
        .isEqualTo("token/" + id + " revoked (node gpu-7)\n");
    var again = run("token", "revoke", id);
    assertThat(again.exit()).isEqualTo(1);
    assertThat(again.err()).contains("token " + id + " not found");
    assertThat(run("token", "list").err()).isEqualTo("No node tokens found.\n");
  }

  /** The server judges a dry run's writes as it would the real ones, and stores nothing. */
  @Test
  void aServerDryRunIsJudgedAndStoresNothing() {
    long revision = store.currentRevision();
    var dry = run("apply", "-f", "examples/deviceclass.yaml", "--dry-run=server");
    assertThat(dry.exit()).as(dry.err()).isZero();
    assertThat(dry.outLines()).isNotEmpty().allMatch(l -> l.endsWith(" created (server dry run)"));
    assertThat(store.currentRevision()).isEqualTo(revision);
    assertThat(registry.list(Kinds.DEVICE_CLASS).items()).isEmpty();

    assertThat(run("apply", "-f", "examples/deviceclass.yaml").exit()).isZero();
    var again = run("apply", "-f", "examples/deviceclass.yaml", "--dry-run=server");
    assertThat(again.outLines()).allMatch(l -> l.endsWith(" unchanged (server dry run)"));
    var client = run("apply", "-f", "examples/deviceclass.yaml", "--dry-run=client");
    assertThat(client.outLines()).allMatch(l -> l.endsWith(" valid (dry run: nothing sent)"));
  }

  @Test
  void applyingTheSameManifestsAgainChangesNothing() {
    assertThat(run("apply", "-f", "examples", "-f", "docs/api-samples").exit()).isZero();
    long revision = store.currentRevision();

    var again = run("apply", "-f", "examples", "-f", "docs/api-samples");

    assertThat(again.exit()).isZero();
    assertThat(again.outLines()).isNotEmpty().allMatch(l -> l.endsWith(" unchanged"));
    assertThat(store.currentRevision()).isEqualTo(revision);
  }

  @Test
  void applyingAChangedSpecConfiguresTheObject() {
    assertThat(run("apply", "-f", "examples/computedomain.yaml").exit()).isZero();

    var changed =
        runWithStdin(
            """
        kind: ComputeDomain
        metadata:
          name: nvlink-a
        spec:
          numNodes: 4
        """,
            "apply",
            "-f",
            "-");

    assertThat(changed.out()).isEqualTo("computedomain/nvlink-a configured\n");
    assertThat(registry.get(Kinds.COMPUTE_DOMAIN, "nvlink-a").orElseThrow().spec().numNodes())
        .isEqualTo(4);
  }

  @Test
  void anInvalidDocumentStopsTheWholeApply() {
    var result =
        runWithStdin(
            """
        kind: Node
        metadata:
          name: fine-node
        ---
        kind: Workload
        metadata:
          name: broken
        spec:
          groups:
            - name: workers
              replicas: -1
              template:
                command: [train]
        """,
            "apply",
            "-f",
            "-");

    assertThat(result.exit()).isEqualTo(1);
    assertThat(result.out()).isEmpty();
    assertThat(result.err().lines().toList())
        .containsExactly(
            "error: 1 of 2 documents is invalid; nothing was applied",
            "  <stdin> document 2 (workload/broken): spec.groups[0].replicas: must be >= 0");
    assertThat(registry.get(Kinds.NODE, "fine-node")).isEmpty();
  }

  @Test
  void aDocumentThatDoesNotDecodeNamesTheFileAndField() {
    var result =
        runWithStdin("kind: Node\nmetadata:\n  name: n\n  colour: blue\n", "apply", "-f", "-");

    assertThat(result.exit()).isEqualTo(1);
    assertThat(result.err())
        .isEqualTo("error: <stdin>: document 1: metadata.colour: unknown field\n");
  }

  @Test
  void anUnknownKindIsOneLineListingTheKinds() {
    var result = run("get", "gizmos");

    assertThat(result.exit()).isEqualTo(1);
    assertThat(result.err().lines().toList()).hasSize(1);
    assertThat(result.err())
        .startsWith("error: unknown kind 'gizmos'; known kinds: node (no), deviceslice (ds)");
  }

  @Test
  void aMissingObjectIsOneLine() {
    var result = run("get", "node", "nowhere");

    assertThat(result.exit()).isEqualTo(1);
    assertThat(result.err()).isEqualTo("error: node/nowhere not found\n");
  }

  @Test
  void tablesListObjectsOfAKind() {
    run("apply", "-f", "examples", "-f", "docs/api-samples");

    var nodes = run("get", "nodes");
    var workloads = run("get", "wl");
    var empty = run("get", "tasks", "-l", "team=nobody");

    assertThat(nodes.outLines().getFirst())
        .matches("NAME +READY +DEVICES +SCHEDULING +GPUS +MIG FREE +SHARED FREE +AGE");
    assertThat(nodes.outLines().get(1)).startsWith("gpu-node-1").contains("Unknown");
    assertThat(workloads.outLines())
        .filteredOn(l -> l.startsWith("training "))
        .singleElement()
        .asString()
        .contains("head 0/1, workers 0/4");
    assertThat(empty.exit()).isZero();
    assertThat(empty.out()).isEmpty();
    assertThat(empty.err()).isEqualTo("No tasks found.\n");
  }

  @Test
  void getVolumesAndPlugins() {
    run("apply", "-f", "examples/volumes.yaml");
    var node = registry.create(new Node(ObjectMeta.named("node-1"), null, null));
    registry.updateStatus(
        node.withStatus(
            NodeStatus.EMPTY.withPlugins(
                List.of(
                    new PluginInstance(
                        "hostpath.csi.quartermaster.dev",
                        "unix:///run/qm/csi/hostpath.sock",
                        "0.3.0",
                        Set.of(PluginRole.Node),
                        true,
                        "",
                        "node-1")))));

    var volumes = run("get", "volumes");
    var plugins = run("get", "plugins");
    var onNode = run("get", "plugins", "node-1", "-o", "wide");
    var yaml = run("get", "plugins", "-o", "yaml");

    assertThat(volumes.outLines().getFirst())
        .matches("NAME +PLUGIN +CAPACITY +ACCESS +CLAIMS +PHASE +AGE");
    assertThat(volumes.outLines().get(1))
        .matches(
            "dataset +hostpath.csi.quartermaster.dev +1Gi +MultiNodeReaderOnly +0/0 +Pending +.*");
    assertThat(plugins.exit()).as(plugins.err()).isZero();
    assertThat(plugins.outLines())
        .containsExactly(
            "NAME                             NODE     ROLES   VERSION   HEALTHY   ENDPOINT",
            "hostpath.csi.quartermaster.dev   node-1   Node    0.3.0     yes       unix:///run/qm/csi/hostpath.sock");
    assertThat(onNode.outLines().getFirst()).endsWith("CSI-NODE-ID");
    assertThat(yaml.exit()).isEqualTo(2);
    assertThat(yaml.err()).contains("plugins take no -o yaml").contains("qm get nodes -o yaml");
  }

  @Test
  void jsonOfSeveralObjectsIsOneListObject() throws IOException {
    run("apply", "-f", "examples/deviceclass.yaml");

    var result = run("get", "deviceclasses", "-o", "json");

    JsonNode list = ObjectCodec.json().readTree(result.out());
    assertThat(list.get("kind").asText()).isEqualTo("List");
    assertThat(list.get("items")).hasSize(4);
    assertThat(list.get("items").get(0).get("kind").asText()).isEqualTo("DeviceClass");
  }

  @Test
  void describeNodeShowsItsDevicesAndWhichClaimHoldsEach() {
    run("apply", "-f", "examples", "-f", "docs/api-samples");
    var claim = registry.get(Kinds.RESOURCE_CLAIM, "single-gpu").orElseThrow();
    // As the allocator binds: the node's record first, then the claim.
    var record = registry.get(Kinds.NODE_ALLOCATION, "gpu-node-1").orElseThrow();
    registry.update(
        record.withSpec(
            record
                .spec()
                .with(
                    Map.of(
                        "gpu-1", new DeviceHolder("single-gpu", claim.metadata().uid()),
                        "gpu-2", new DeviceHolder("reserved-gpu", "uid-of-a-pending-claim")))));
    registry.updateStatus(
        claim.withStatus(
            ResourceClaimStatus.EMPTY.withAllocation(
                new Allocation("gpu-node-1", List.of(new AllocatedDevice("gpu", "gpu-1"))))));

    var result = run("describe", "node", "gpu-node-1");

    assertThat(result.exit()).as(result.err()).isZero();
    assertThat(result.out())
        .contains("Name:")
        .contains("gpu-node-1")
        .containsPattern("quartermaster.dev/zone=rack-a")
        .containsPattern("gpu-1 +gpu +A100-SXM4-80GB +80Gi +Healthy +claim/single-gpu")
        .containsPattern(
            "gpu-2 +gpu +A100-SXM4-80GB +80Gi +Healthy +claim/reserved-gpu \\(reserved\\)")
        .containsPattern(
            "gpu-3 +gpu +A100-SXM4-80GB +80Gi +Unhealthy \\(XID 79 \\(GPU has fallen off the bus\\)\\) +<none>")
        .contains("Conditions:  <none>");
    var records = run("get", "nodeallocations");
    assertThat(records.out()).as(records.err()).containsPattern("gpu-node-1 +2 +2 ");
  }

  @Test
  void describeWorksForEveryKind() {
    var manifests = new ManifestReader(env).read(List.of("examples", "docs/api-samples"));
    run("apply", "-f", "examples", "-f", "docs/api-samples");

    for (var m : manifests) {
      var result = run("describe", m.object().kind().singular(), m.object().metadata().name());
      assertThat(result.exit()).as(m.where() + ": " + result.err()).isZero();
      assertThat(result.out()).as(m.where()).contains("Kind:").contains(m.object().kind().name());
    }
  }

  @Test
  void deleteRemovesAnObjectOrMarksItWhileFinalizersRemain() {
    run("apply", "-f", "examples/deviceclass.yaml");
    runWithStdin(
        """
        kind: Volume
        metadata:
          name: scratch
          finalizers: [quartermaster.dev/volume-release]
        spec:
          plugin: hostpath.csi.quartermaster.dev
          capacityBytes: 1073741824
        """,
        "apply",
        "-f",
        "-");

    var gone = run("delete", "deviceclass", "gpu");
    var marked = run("delete", "volume", "scratch");

    assertThat(gone.out()).isEqualTo("deviceclass/gpu deleted\n");
    assertThat(registry.get(Kinds.DEVICE_CLASS, "gpu")).isEmpty();
    assertThat(marked.out())
        .isEqualTo(
            "volume/scratch marked for deletion (waiting for finalizers: quartermaster.dev/volume-release, "
                + "volumes.quartermaster.dev/release)\n");
    assertThat(run("describe", "volume", "scratch").out())
        .contains("waiting for finalizers: quartermaster.dev/volume-release");
  }

  @Test
  void clientFlagsWorkBeforeTheCommandAsAfterIt() {
    run("apply", "-f", "examples/deviceclass.yaml");
    var after = run("get", "deviceclasses", "-o", "json", "--server", server.baseUri().toString());

    var before = run("--server", server.baseUri().toString(), "-o", "json", "get", "deviceclasses");
    var equals = run("--server=" + server.baseUri(), "--output=json", "get", "deviceclasses");
    var missing = run("--token-file", "/nonexistent/admin.token", "get", "nodes");

    assertThat(before.exit()).as(before.err()).isZero();
    assertThat(before.out()).isEqualTo(after.out()).contains("\"DeviceClass\"");
    assertThat(equals.out()).isEqualTo(after.out());
    assertThat(missing.err())
        .startsWith(
            "error: token file /nonexistent/admin.token (from --token-file) does not exist");
  }

  /** A loopback address nothing listens on: connecting to it is refused. */
  private static String deadServer() throws IOException {
    try (var s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return "http://127.0.0.1:" + s.getLocalPort();
    }
  }

  private CliServer.Run runWithVariables(Map<String, String> variables, String... args) {
    var withVariables =
        new CliEnvironment(
            variables,
            env.workingDir(),
            env.home(),
            new ByteArrayInputStream(new byte[0]),
            env.clock(),
            env.connector());
    return runWith(withVariables, args);
  }

  /**
   * Several servers, the first down: a one-shot command goes on to the next within itself, however
   * the servers were given (flag, variable, config file).
   */
  @Test
  void aCommandGoesOnPastAServerThatCannotBeReached() throws IOException {
    run("apply", "-f", "examples/deviceclass.yaml");
    var servers = deadServer() + "," + server.baseUri();
    var nodes = run("get", "nodes", "--server", servers);
    assertThat(nodes.exit()).as(nodes.err()).isZero();
    assertThat(nodes.err()).isEqualTo("No nodes found.\n"); // the live server's answer, no error
    var fromFlag = run("get", "deviceclasses", "-o", "json", "--server", servers);
    assertThat(fromFlag.exit()).as(fromFlag.err()).isZero();
    assertThat(fromFlag.out()).contains("\"DeviceClass\"");

    var fromVariable =
        runWithVariables(
            Map.of(
                "QM_SERVER",
                servers,
                "QM_TOKEN_FILE",
                server.adminTokenFile().toString(),
                "XDG_CONFIG_HOME",
                dir.resolve("config").toString()),
            "get",
            "deviceclasses",
            "-o",
            "json");
    assertThat(fromVariable.exit()).as(fromVariable.err()).isZero();
    assertThat(fromVariable.out()).isEqualTo(fromFlag.out());

    var config = dir.resolve("pair-config");
    Files.createDirectories(config.resolve("quartermaster"));
    Files.writeString(
        config.resolve("quartermaster/config.yaml"),
        "current: pair\nclusters:\n  pair:\n"
            + "    server: "
            + servers
            + "\n    tokenFile: "
            + server.adminTokenFile()
            + "\n");
    var fromFile =
        runWithVariables(
            Map.of("XDG_CONFIG_HOME", config.toString()), "get", "deviceclasses", "-o", "json");
    assertThat(fromFile.exit()).as(fromFile.err()).isZero();
    assertThat(fromFile.out()).isEqualTo(fromFlag.out());
  }

  @Test
  void whenNoServerCanBeReachedTheErrorNamesEach() throws IOException {
    var first = deadServer();
    var second = deadServer();
    var result = run("get", "nodes", "--server", first + "," + second);
    assertThat(result.exit()).isEqualTo(1);
    assertThat(result.err())
        .startsWith("error: none of the 2 servers answered: ")
        .contains("cannot reach the server at " + first + ": connection refused")
        .contains("cannot reach the server at " + second + ": connection refused");
  }

  @Test
  void aMissingTokenFileSaysHowToGetOne() {
    var result = run("get", "nodes", "--token-file", "/nonexistent/admin.token");

    assertThat(result.exit()).isEqualTo(1);
    assertThat(result.err())
        .isEqualTo(
            "error: token file /nonexistent/admin.token (from --token-file) does not exist; "
                + "start a server with ./qm server, or pass --token-file\n");
  }

  @Test
  void debugShowsTheStackTrace() {
    var result = run("get", "gizmos", "--debug");

    assertThat(result.exit()).isEqualTo(1);
    assertThat(result.err())
        .startsWith("error: unknown kind 'gizmos'")
        .contains("\tat dev.quartermaster.cli");
  }

  @Test
  void usageErrorsExitWithTwo() {
    assertThat(run("get").exit()).isEqualTo(2);
    assertThat(run("get", "nodes", "-o", "xml").exit()).isEqualTo(2);
    assertThat(run("frobnicate").exit()).isEqualTo(2);
    assertThat(run().exit()).isEqualTo(2);
  }

  @Test
  void versionNamesQmAndJava() {
    var result = run("version");

    assertThat(result.exit()).isZero();
    assertThat(result.outLines()).hasSize(2);
    assertThat(result.outLines().get(0)).startsWith("qm ");
    assertThat(result.outLines().get(1)).startsWith("java " + Runtime.version().feature());
  }

  @Test
  void aTakenPortIsOneLineNamingTheAddress() throws IOException {
    try (var taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      var address = "127.0.0.1:" + taken.getLocalPort();

      var result = run("server", "--data", dir.resolve("other").toString(), "--listen", address);

      assertThat(result.exit()).isEqualTo(1);
      assertThat(result.err().lines().toList()).hasSize(1);
      assertThat(result.err())
          .startsWith("error: cannot listen on " + address + ": address already in use");
      assertThat(result.err()).contains("pick another address with --listen");
      assertThat(dir.resolve("other")).as("nothing made in the data directory").doesNotExist();

      var up = run("up", "--data", dir.resolve("up").toString(), "--listen", address);
      assertThat(up.exit()).isEqualTo(1);
      assertThat(up.err())
          .startsWith("error: cannot listen on " + address + ": address already in use")
          .contains("nothing in " + dir.resolve("up") + " was created or changed");
      assertThat(dir.resolve("up")).as("nothing made in the data directory").doesNotExist();
    }
  }

  @Test
  void aDataDirectoryInUseIsOneLine() {
    var data = dir.resolve("busy");
    try (var holder = SqliteStore.open(data.resolve("store.db"))) {
      var result = run("server", "--data", data.toString(), "--listen", "127.0.0.1:0");

      assertThat(result.exit()).isEqualTo(1);
      assertThat(result.err().lines().toList()).hasSize(1);
      // In-process the store says "already open in this process"; across processes "in use by
      // another process".
      assertThat(result.err())
          .startsWith("error: store " + data.resolve("store.db") + " is ")
          .contains("pick another with --data");
      assertThat(holder.currentRevision()).as("the holder's store is untouched").isZero();
    }
  }

  @Test
  void whatGetPrintsCanBeAppliedBack() {
    run("apply", "-f", "examples/workload.yaml", "-f", "examples/deviceclass.yaml");
    var exported =
        run("get", "deviceclasses", "-o", "yaml").out()
            + "---\n"
            + run("get", "wl", "finetune", "-o", "yaml").out();

    var result = runWithStdin(exported, "apply", "-f", "-");

    assertThat(result.exit()).as(result.err()).isZero();
    assertThat(result.out())
        .isEqualTo(
            "deviceclass/a100-80g unchanged\ndeviceclass/gpu unchanged\ndeviceclass/gpu-any unchanged\ndeviceclass/h100-80g unchanged\nworkload/finetune unchanged\n");
  }
}
