package dev.quartermaster.kubelet.real;

import dev.quartermaster.agent.devices.DeviceRoot;
import dev.quartermaster.agent.discovery.ControlNode;
import dev.quartermaster.agent.discovery.SimulatedDeviceRoot;
import dev.quartermaster.agent.host.HostDeviceTree;
import dev.quartermaster.agent.nvml.NvmlLoad;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.kubelet.kube.ApiClaimSource;
import dev.quartermaster.kubelet.kube.KubeNames;
import dev.quartermaster.kubelet.kube.SlicePublisher;
import dev.quartermaster.kubelet.plugin.NaivePlugin;
import dev.quartermaster.kubelet.prepare.DeviceLook;
import dev.quartermaster.kubelet.prepare.NodeDevices;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.FileInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The seed scenarios on a real kubelet, containerd, scheduler, controller manager and API server
 * ({@code ./qm bench kubelet} starts them and runs this): not part of {@code ./qm test}. It writes
 * what happened to {@code <cluster>/report.md} and fails if a promise was broken.
 */
@Tag("real-kubelet")
class RealKubeletHarness {
  private static final String DRIVER = "gpu.quartermaster.dev";
  private static final String DOMAIN = "train-1";
  private static final Path DEPLOY = Path.of("..", "deploy", "kubernetes");

  private final StringBuilder report = new StringBuilder();
  final List<String> broken = new ArrayList<>();
  Cluster cluster;
  KubernetesClient admin;
  private SimulatedDeviceRoot devices;
  Path pluginKubeconfig;
  private Process plugin;
  private int pluginStarts;

  /** {@code QM_KUBE_ONLY=sharing}: only the sharing scenarios (issue 47), after the setup. */
  private static boolean sharingOnly() {
    return "sharing".equals(System.getenv("QM_KUBE_ONLY"));
  }

  private int rounds() {
    return Integer.parseInt(System.getenv().getOrDefault("QM_KUBE_ROUNDS", "100"));
  }

  @Test
  void seeds() throws Exception {
    cluster = Cluster.fromEnv();
    var started = Instant.now();
    try (var client = client(cluster.adminKubeconfig())) {
      admin = client;
      line("# The DRA plugin on a real kubelet");
      line("");
      line(
          "Cluster: "
              + cluster.dir()
              + ", node "
              + cluster.node()
              + ", API "
              + cluster.apiServer());
      line("Kubernetes " + admin.getKubernetesVersion().getGitVersion() + ".");
      deploy();
      for (var leftover : List.of("devroot", "qm-state", "unwatched-registry")) {
        deleteTree(cluster.dir().resolve(leftover));
      }
      devices =
          SimulatedDeviceRoot.builder(cluster.dir().resolve("devroot")).gpus(1).channels(1).build();
      line(
          "Simulated device tree "
              + devices.root()
              + ": 1 GPU, 1 IMEX channel, character devices: "
              + devices.charDevices()
              + ".");
      nodeScopedCredentials();
      if (!sharingOnly()) {
        aPodWithAGpuRunsWithEveryControlNode();
        seed1Ours();
        sigkillAtEveryPoint();
        reconcileWindow(false);
        reconcileWindow(true);
        seed1Naive();
        reconcileWindowNaive();
        seed2();
      }
      new SharingScenarios(this).run();
    } catch (Exception | AssertionError e) {
      broken.add("the harness stopped: " + e);
      throw e;
    } finally {
      stopPlugin();
      line("");
      line("Took " + Duration.between(started, Instant.now()).toSeconds() + " s.");
      if (!broken.isEmpty()) {
        line("");
        line("## BROKEN");
        broken.forEach(b -> line("- " + b));
      }
      Files.writeString(cluster.dir().resolve("report.md"), report, StandardCharsets.UTF_8);
    }
    if (!broken.isEmpty()) {
      throw new AssertionError(String.join("\n", broken));
    }
  }

  // --- setup -------------------------------------------------------------------------------------

  private void deploy() throws IOException {
    section("Deploy manifests");
    var applied = new ArrayList<String>();
    try (var in = new FileInputStream(DEPLOY.resolve("quartermaster-dra.yaml").toFile())) {
      for (HasMetadata item : admin.load(in).items()) {
        if (item instanceof DaemonSet) {
          continue; // its image is not in this cluster: the plugin runs as a host process here
        }
        admin.resource(item).forceConflicts().serverSideApply();
        applied.add(item.getKind() + " " + item.getMetadata().getName());
      }
    }
    for (var file : List.of("gpu-pod.yaml", "channel-pod.yaml")) {
      try (var in = new FileInputStream(DEPLOY.resolve(file).toFile())) {
        for (HasMetadata item : admin.load(in).items()) {
          if (!(item instanceof Pod)) {
            item.getMetadata().setNamespace(Pods.NAMESPACE);
            admin.resource(item).forceConflicts().serverSideApply();
            applied.add(item.getKind() + " " + item.getMetadata().getName());
          }
        }
      }
    }
    admin
        .resource(Pods.gpuAndChannel("gpu-and-channel", DOMAIN))
        .forceConflicts()
        .serverSideApply();
    applied.add("ResourceClaimTemplate gpu-and-channel (domain " + DOMAIN + ")");
    line("Applied " + String.join(", ", applied) + ".");
  }

  /**
   * The plugin's token is bound to a pod of its service account on the node, as a DaemonSet pod's
   * projected token is; the admission policy then lets it write only its own node's slices.
   */
  private void nodeScopedCredentials() throws Exception {
    section("Node-scoped credentials");
    var holder = Pods.pod("qm-token-holder", cluster.node(), cluster.busyboxImage(), "unused");
    holder.getMetadata().setNamespace("quartermaster");
    holder.getSpec().setServiceAccountName("quartermaster-dra");
    holder.getSpec().setResourceClaims(List.of());
    var main = holder.getSpec().getContainers().getFirst();
    main.getResources().setClaims(List.of());
    main.setCommand(List.of("sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done"));
    admin.resource(holder).forceConflicts().serverSideApply();
    var running = waitRunning("quartermaster", "qm-token-holder", Duration.ofSeconds(120));
    var token =
        admin
            .serviceAccounts()
            .inNamespace("quartermaster")
            .withName("quartermaster-dra")
            .tokenRequest(
                new TokenRequestBuilder()
                    .withNewSpec()
                    .withExpirationSeconds(7200L)
                    .withNewBoundObjectRef()
                    .withApiVersion("v1")
                    .withKind("Pod")
                    .withName("qm-token-holder")
                    .withUid(running.getMetadata().getUid())
                    .endBoundObjectRef()
                    .endSpec()
                    .build())
            .getStatus()
            .getToken();
    pluginKubeconfig = cluster.dir().resolve("plugin.kubeconfig");
    Files.writeString(
        pluginKubeconfig,
        """
        apiVersion: v1
        kind: Config
        clusters: [{name: qmk, cluster: {server: "%s", insecure-skip-tls-verify: true}}]
        users: [{name: plugin, user: {token: "%s"}}]
        contexts: [{name: qmk, context: {cluster: qmk, user: plugin}}]
        current-context: qmk
        """
            .formatted(cluster.apiServer(), token));
    line(
        "The plugin's token: service account quartermaster/quartermaster-dra, bound to pod"
            + " quartermaster/qm-token-holder on "
            + cluster.node()
            + ".");
    try (var asPlugin = client(pluginKubeconfig)) {
      var foreign =
          new ResourceSliceBuilder()
              .withNewMetadata()
              .withName("someone-elses-node-" + DRIVER + "-0")
              .endMetadata()
              .withNewSpec()
              .withDriver(DRIVER)
              .withNodeName("someone-elses-node")
              .withNewPool()
              .withName("someone-elses-node")
              .withGeneration(0L)
              .withResourceSliceCount(1L)
              .endPool()
              .endSpec()
              .build();
      // The API server applies a policy once its informers have seen it and its binding (a moment
      // after they are created): a write allowed in that moment is undone and tried again.
      var until = Instant.now().plus(Duration.ofSeconds(15));
      while (true) {
        try {
          asPlugin.resource(foreign).create();
        } catch (KubernetesClientException e) {
          line("- Writing another node's slice: refused, " + e.getCode() + ": " + firstLine(e));
          break;
        }
        admin.resource(foreign).delete();
        if (Instant.now().isAfter(until)) {
          broken.add("the plugin's token wrote a ResourceSlice of another node");
          line("- Writing another node's slice: ALLOWED for 15 s after the policy (broken).");
          break;
        }
        TimeUnit.SECONDS.sleep(1);
      }
      var none =
          asPlugin.resources(ResourceClaim.class).inNamespace("default").withName("none").get();
      line(
          "- Reading a ResourceClaim by name: allowed ("
              + (none == null ? "not found" : "found")
              + ").");
      try {
        asPlugin.resources(ResourceClaim.class).inAnyNamespace().list();
        broken.add("the plugin's token may list every ResourceClaim");
        line("- Listing every ResourceClaim: ALLOWED (more than the plugin needs).");
      } catch (KubernetesClientException e) {
        line("- Listing every ResourceClaim: refused, " + e.getCode() + " (it needs only get).");
      }
    }
  }

  // --- a pod with a GPU
  // ---------------------------------------------------------------------------

  private void aPodWithAGpuRunsWithEveryControlNode() throws Exception {
    section("A pod with a GPU claim (the plugin registered by itself)");
    var log = startPlugin(cluster.registryDir());
    waitUntil(
        "the kubelet registered the plugin",
        Duration.ofSeconds(60),
        () -> Files.readString(log).contains("the kubelet registered DRA driver"));
    waitSlicesReady(true);
    var pod = Pods.pod("gpu-smoke", cluster.node(), cluster.busyboxImage(), "one-gpu");
    var created = Instant.now();
    admin.resource(pod).create();
    var running = runsWithEveryControlNode("gpu-smoke", created, "it was created");
    var claim = claimOf(running);
    var spec = cdiSpecOf(claim.getMetadata().getUid());
    line("- Its claim " + claim.getMetadata().getName() + " got " + allocatedDevices(claim) + ".");
    line("- CDI spec " + spec.getFileName() + " names: " + deviceNodes(spec) + ".");
    deletePod("gpu-smoke", false);
    waitUntil("the claim's CDI spec is removed", Duration.ofSeconds(60), () -> !Files.exists(spec));
    line("- Deleted: the kubelet unprepared the claim and its CDI spec is gone.");
    stopPlugin();
  }

  // --- seed 1 ------------------------------------------------------------------------------------

  private void seed1Ours() throws Exception {
    section("Seed 1 with our plugin: replace a pod at once, " + rounds() + " times");
    var proxySocket = cluster.pluginsDir().resolve(DRIVER).resolve("recorded.sock");
    startPlugin(cluster.dir().resolve("unwatched-registry"));
    waitSlicesReady(true);
    try (var proxy = new RecordingProxy(DRIVER, draSocket(), proxySocket, registrationSocket())) {
      waitRegistered(proxy);
      line(replaceRepeatedly("ours", rounds(), true, false, proxy));
      var read = wireRecord(proxy);
      if (!read.doubles().isEmpty()) {
        broken.add("our plugin double-prepared " + read.doubles().size() + " times");
      }
    }
    stopPlugin();
  }

  private void seed1Naive() throws Exception {
    var most = Math.min(rounds(), 30);
    section("Seed 1 with the naive plugin (no ledger check): at most " + most + " replacements");
    try (var run = startNaive()) {
      var proxy = run.proxy();
      waitRegistered(proxy);
      waitSlicesReady(true);
      line(replaceRepeatedly("naive", most, false, true, proxy));
      if (wireRecord(proxy).doubles().isEmpty()) {
        broken.add("the naive plugin was not caught double-preparing in " + most + " replacements");
      }
    }
  }

  // --- SIGKILL at every point of the kubelet's calls
  // -----------------------------------------------

  /**
   * For each point before, during and after each of the kubelet's two calls ({@link KillPoint}): a
   * replacement round (force-delete, create the replacement at once) in which the plugin is killed
   * with SIGKILL the first time a call reaches that point, then started again on the same state.
   * Each point is reported: whether it was reached, double prepares on the wire (with their
   * record), and overlaps seen in the containers.
   */
  private void sigkillAtEveryPoint() throws Exception {
    section("SIGKILL of our plugin before, during and after each of the kubelet's calls");
    var proxySocket = cluster.pluginsDir().resolve(DRIVER).resolve("recorded.sock");
    startPlugin(cluster.dir().resolve("unwatched-registry"));
    waitSlicesReady(true);
    try (var proxy = new RecordingProxy(DRIVER, draSocket(), proxySocket, registrationSocket());
        var overlaps = new ContainerOverlaps(devices.devDir().resolve("nvidia0"))) {
      waitRegistered(proxy);
      var name = "kill-0";
      admin
          .resource(Pods.pod(name, cluster.node(), cluster.busyboxImage(), "gpu-and-channel"))
          .create();
      waitRunning(Pods.NAMESPACE, name, Duration.ofSeconds(180));
      int round = 0;
      for (var point : KillPoint.all()) {
        round++;
        var killed = new java.util.concurrent.atomic.AtomicBoolean();
        var restarted = new java.util.concurrent.CompletableFuture<Void>();
        proxy.onCall(
            at -> {
              if (at.equals(point) && killed.compareAndSet(false, true)) {
                killPluginThenStartAgain(point, restarted);
              }
            });
        var doublesBefore = DoublePrepares.of(proxy.events()).flags().size();
        var overlapsBefore = overlaps.overlaps().size();
        var next = "kill-" + round;
        deletePod(name, true);
        admin
            .resource(Pods.pod(next, cluster.node(), cluster.busyboxImage(), "gpu-and-channel"))
            .create();
        waitRunning(Pods.NAMESPACE, next, Duration.ofSeconds(300));
        proxy.onCall(at -> {});
        if (killed.get()) {
          restarted.get(120, TimeUnit.SECONDS);
        }
        var read = DoublePrepares.of(proxy.events());
        var newDoubles = read.flags().subList(doublesBefore, read.flags().size());
        var newOverlaps = overlaps.overlaps().subList(overlapsBefore, overlaps.overlaps().size());
        line(
            "- killed "
                + point
                + ": "
                + (killed.get() ? "yes" : "NOT REACHED in this round")
                + "; double prepares: "
                + newDoubles.size()
                + "; overlapping containers: "
                + newOverlaps.size()
                + ".");
        printFlags(newDoubles);
        newOverlaps.stream().limit(3).forEach(o -> line("  - overlap " + o));
        if (!newDoubles.isEmpty() || !newOverlaps.isEmpty()) {
          broken.add(
              "SIGKILL "
                  + point
                  + ": "
                  + newDoubles.size()
                  + " double prepares, "
                  + newOverlaps.size()
                  + " overlapping samples");
        }
        name = next;
      }
      deletePod(name, true);
      waitNoPods();
    }
    stopPlugin();
  }

  /**
   * SIGKILL of the plugin, from the proxy's thread at {@code point}; it is started again on another
   * thread, since the kubelet's call waits on this one.
   */
  private void killPluginThenStartAgain(
      KillPoint point, java.util.concurrent.CompletableFuture<Void> restarted) {
    var pid = plugin.pid();
    try {
      plugin.destroyForcibly().waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      restarted.completeExceptionally(e);
      return;
    }
    line("  - SIGKILL " + point + " (plugin pid " + pid + ")");
    Thread.ofVirtual()
        .start(
            () -> {
              try {
                startPlugin(cluster.dir().resolve("unwatched-registry"));
                restarted.complete(null);
              } catch (Exception e) {
                restarted.completeExceptionally(e);
              }
            });
  }

  // --- the kubelet's reconcile window
  // --------------------------------------------------------------

  /** Offsets from the expected reconcile tick at which pod A is force-deleted and B created. */
  private static final List<Duration> BEFORE_TICK =
      List.of(
          Duration.ofMillis(-3000),
          Duration.ofMillis(-1500),
          Duration.ofMillis(-700),
          Duration.ofMillis(-200),
          Duration.ofMillis(300));

  /**
   * Item 3 of issue 43 as it happened: the kubelet's DRA manager unprepares, every 60 s, the claims
   * of pods no longer active, and a force-deleted pod is no longer active before its container
   * stops. So pod A is force-deleted and B created from the same template just before a tick (at
   * several offsets, the tick's phase being known only from the kubelet's start); with {@code
   * restartKubelet}, the kubelet is restarted a moment later (which cancelled A's StopContainer in
   * the incident). A's container ignores SIGTERM and holds the GPU open; B must not run with it
   * while A does: 0 overlaps, judged from the containers, and 0 double prepares on the wire.
   */
  private void reconcileWindow(boolean restartKubelet) throws Exception {
    section(
        "Force-delete inside the kubelet's reconcile window, "
            + (restartKubelet ? "with" : "without")
            + " a kubelet restart: our plugin");
    var proxySocket = cluster.pluginsDir().resolve(DRIVER).resolve("recorded.sock");
    startPlugin(cluster.dir().resolve("unwatched-registry"));
    waitSlicesReady(true);
    try (var proxy = new RecordingProxy(DRIVER, draSocket(), proxySocket, registrationSocket());
        var overlaps = new ContainerOverlaps(devices.devDir().resolve("nvidia0"))) {
      waitRegistered(proxy);
      var found =
          inReconcileWindow(
              "window" + (restartKubelet ? "-restart" : ""), restartKubelet, proxy, overlaps);
      if (found.doubles() > 0 || found.overlaps() > 0) {
        broken.add(
            "reconcile window"
                + (restartKubelet ? " with a kubelet restart" : "")
                + ": "
                + found.doubles()
                + " double prepares, "
                + found.overlaps()
                + " overlapping samples");
      }
    }
    stopPlugin();
  }

  /** The naive plugin, its slices published, behind the recording proxy: closed in reverse. */
  private record NaiveRun(NaivePlugin naive, SlicePublisher slices, RecordingProxy proxy)
      implements AutoCloseable {
    @Override
    public void close() throws Exception {
      try (naive;
          slices;
          proxy) {
        // the proxy closes first, then the slices, then the plugin: as one try-with-resources
      }
    }
  }

  private NaiveRun startNaive() throws Exception {
    var root = DeviceRoot.at(devices.root());
    var tree =
        new HostDeviceTree(
            root, () -> new NvmlLoad.Unavailable("simulated"), Duration.ofSeconds(2));
    var look = new DeviceLook(tree);
    var socket = cluster.pluginsDir().resolve(DRIVER).resolve("naive.sock");
    var naive =
        NaivePlugin.start(
            new ApiClaimSource(admin, DRIVER),
            root,
            () -> new NvmlLoad.Unavailable("simulated"),
            cluster.node(),
            cluster.cdiDir(),
            socket);
    var slices =
        new SlicePublisher(
                new SystemEnv(),
                admin,
                DRIVER,
                cluster.node(),
                () -> new NodeDevices(look.rescan(), tree.checkControlNodes()))
            .start(Duration.ofSeconds(2));
    var proxy =
        new RecordingProxy(
            DRIVER,
            socket,
            cluster.pluginsDir().resolve(DRIVER).resolve("recorded.sock"),
            registrationSocket());
    return new NaiveRun(naive, slices, proxy);
  }

  /** The naive plugin in the reconcile window: it must be caught (an overlap or a double). */
  private void reconcileWindowNaive() throws Exception {
    section("Force-delete inside the kubelet's reconcile window: the naive plugin");
    try (var run = startNaive();
        var overlaps = new ContainerOverlaps(devices.devDir().resolve("nvidia0"))) {
      var proxy = run.proxy();
      waitRegistered(proxy);
      waitSlicesReady(true);
      var found = inReconcileWindow("naive-window", false, proxy, overlaps);
      if (found.doubles() == 0 && found.overlaps() == 0) {
        broken.add("the naive plugin was not caught in the reconcile window");
      }
    }
  }

  /** What one reconcile-window sweep saw. */
  private record WindowFound(int doubles, int overlaps) {}

  /**
   * For each offset of {@link #BEFORE_TICK}: pod A running; at the offset before the next tick, A
   * force-deleted and B created; optionally the kubelet restarted; then B must run (once A's
   * container is gone), and A's container is killed by the kubelet in its time.
   */
  private WindowFound inReconcileWindow(
      String tag, boolean restartKubelet, RecordingProxy proxy, ContainerOverlaps overlaps)
      throws Exception {
    var kubelet = new KubeletProcess(cluster);
    int round = 0;
    for (var offset : BEFORE_TICK) {
      round++;
      var a = tag + "-a" + round;
      var b = tag + "-b" + round;
      admin
          .resource(Pods.pod(a, cluster.node(), cluster.busyboxImage(), "gpu-and-channel"))
          .create();
      waitRunning(Pods.NAMESPACE, a, Duration.ofSeconds(180));
      var at = kubelet.nextReconcile(Instant.now()).plus(offset);
      while (Instant.now().isBefore(at)) {
        TimeUnit.MILLISECONDS.sleep(Math.max(1, Duration.between(Instant.now(), at).toMillis()));
      }
      deletePod(a, true);
      admin
          .resource(Pods.pod(b, cluster.node(), cluster.busyboxImage(), "gpu-and-channel"))
          .create();
      if (restartKubelet) {
        TimeUnit.MILLISECONDS.sleep(Math.max(0, -offset.toMillis()) + 500);
        kubelet.restart();
        line("  - " + b + ": the kubelet restarted after the tick");
      }
      waitRunning(Pods.NAMESPACE, b, Duration.ofSeconds(300));
      line(
          "- offset "
              + offset.toMillis()
              + " ms from the tick: "
              + b
              + " Running; wire doubles so far "
              + DoublePrepares.of(proxy.events()).flags().size()
              + ", overlapping samples so far "
              + overlaps.overlaps().size()
              + ".");
      deletePod(b, true);
      waitNoPods();
    }
    var read = wireRecord(proxy);
    var seen = overlaps.overlaps();
    line("- Containers: " + seen.size() + " samples saw /dev/nvidia0 open in two processes.");
    seen.stream().limit(5).forEach(o -> line("  - " + o));
    return new WindowFound(read.flags().size(), seen.size());
  }

  /** Each flag's summary and the wire record around it. */
  private void printFlags(List<DoublePrepares.Flag> flags) {
    for (var flag : flags.stream().limit(3).toList()) {
      line("  - " + flag.summary());
      line("    ```");
      flag.record().forEach(r -> line("    " + r));
      line("    ```");
    }
  }

  /** Reports what the kubelet got through {@code proxy}, and returns how it reads. */
  private DoublePrepares wireRecord(RecordingProxy proxy) {
    var read = DoublePrepares.of(proxy.events());
    line(
        "- Wire record: "
            + proxy.events().size()
            + " answers; double prepares: "
            + read.doubles().size()
            + "; early prepares refused while the old claim held the device: "
            + read.refusedWhileHeld()
            + ".");
    printFlags(read.flags());
    return read;
  }

  /**
   * Starts a pod, then {@code times} times: force-deletes it and creates its replacement at once,
   * and waits until the replacement runs.
   */
  private String replaceRepeatedly(
      String tag, int times, boolean checkHelper, boolean stopAtDouble, RecordingProxy proxy)
      throws Exception {
    var name = tag + "-0";
    admin
        .resource(Pods.pod(name, cluster.node(), cluster.busyboxImage(), "gpu-and-channel"))
        .create();
    waitRunning(Pods.NAMESPACE, name, Duration.ofSeconds(180));
    int done = 0;
    int helperDown = 0;
    int missingNodes = 0;
    long slowest = 0;
    long total = 0;
    for (int i = 1; i <= times; i++) {
      var next = tag + "-" + i;
      var at = Instant.now();
      deletePod(name, true);
      admin
          .resource(Pods.pod(next, cluster.node(), cluster.busyboxImage(), "gpu-and-channel"))
          .create();
      if (checkHelper && i == (times + 1) / 2) {
        crashAndRestart(i);
      }
      waitRunning(Pods.NAMESPACE, next, Duration.ofSeconds(300));
      var took = Duration.between(at, Instant.now()).toMillis();
      slowest = Math.max(slowest, took);
      total += took;
      if (!stillRunning(next)) {
        missingNodes++;
      }
      if (checkHelper && !helperRunning()) {
        helperDown++;
      }
      name = next;
      done = i;
      if (i % 10 == 0) {
        line("  - " + i + "/" + times + " replaced; this one Running after " + took + " ms");
      }
      if (stopAtDouble && !DoublePrepares.of(proxy.events()).doubles().isEmpty()) {
        break;
      }
    }
    deletePod(name, true);
    waitNoPods();
    if (missingNodes > 0) {
      broken.add(tag + ": " + missingNodes + " pods started without a control node");
    }
    if (helperDown > 0) {
      broken.add(tag + ": the domain helper was down under a running pod " + helperDown + " times");
    }
    return "- "
        + done
        + " replacements; each Running after "
        + (done == 0 ? 0 : total / done)
        + " ms on average, "
        + slowest
        + " ms at most; pods without a control node: "
        + missingNodes
        + (checkHelper
            ? "; domain " + DOMAIN + "'s helper down under a running pod: " + helperDown
            : "")
        + ".";
  }

  // --- seed 2 ------------------------------------------------------------------------------------

  private void seed2() throws Exception {
    section("Seed 2: nvidia-uvm missing at plugin start, appearing later");
    devices.removeNode(ControlNode.NVIDIA_UVM);
    var proxySocket = cluster.pluginsDir().resolve(DRIVER).resolve("recorded.sock");
    startPlugin(cluster.dir().resolve("unwatched-registry"));
    try (var proxy = new RecordingProxy(DRIVER, draSocket(), proxySocket, registrationSocket())) {
      waitRegistered(proxy);
      var slice = waitSlicesReady(false);
      var gpu = slice.getSpec().getDevices().getFirst();
      line(
          "- Published with nvidia-uvm missing: "
              + gpu.getName()
              + " controlNodesReady="
              + gpu.getAttributes().get(KubeNames.CONTROL_NODES_READY).getBool()
              + ", "
              + KubeNames.CONTROL_NODES_PROBLEM
              + "=\""
              + gpu.getAttributes().get(KubeNames.CONTROL_NODES_PROBLEM).getString()
              + "\", taints "
              + gpu.getTaints().stream()
                  .map(t -> t.getKey() + "=" + t.getValue() + ":" + t.getEffect())
                  .toList()
              + ".");
      admin
          .resource(Pods.pod("uvm-late", cluster.node(), cluster.busyboxImage(), "one-gpu"))
          .create();
      var pending = staysOff("uvm-late", Duration.ofSeconds(20));
      line(
          "- For 20 s the pod stayed "
              + pending.getStatus().getPhase()
              + ": "
              + scheduledCondition(pending)
              + "; prepares it reached: "
              + proxy.events().size()
              + ".");
      devices.restoreNode(ControlNode.NVIDIA_UVM);
      runsWithEveryControlNode("uvm-late", Instant.now(), "nvidia-uvm was created");
      deletePod("uvm-late", true);
      waitNoPods();

      // The slice says ready, the node loses nvidia-uvm, a pod is allocated before the next look.
      waitSlicesReady(true);
      devices.removeNode(ControlNode.NVIDIA_UVM);
      admin
          .resource(Pods.pod("uvm-gone", cluster.node(), cluster.busyboxImage(), "one-gpu"))
          .create();
      var gone = staysOff("uvm-gone", Duration.ofSeconds(15));
      var refusals =
          proxy.events().stream()
              .filter(
                  e -> e instanceof WireEvent.PrepareRefused r && r.error().contains("nvidia-uvm"))
              .count();
      line(
          "- nvidia-uvm removed after the slice said ready: for 15 s the pod stayed "
              + gone.getStatus().getPhase()
              + " ("
              + scheduledCondition(gone)
              + "); prepares refused"
              + " naming nvidia-uvm: "
              + refusals
              + ".");
      devices.restoreNode(ControlNode.NVIDIA_UVM);
      runsWithEveryControlNode("uvm-gone", Instant.now(), "nvidia-uvm was back");
      deletePod("uvm-gone", true);
      waitNoPods();
    }
    stopPlugin();
  }

  // --- the plugin process -----------------------------------------------------------------------

  private Path draSocket() {
    return cluster.pluginsDir().resolve(DRIVER).resolve("dra.sock");
  }

  private Path registrationSocket() {
    return cluster.registryDir().resolve(DRIVER + "-reg.sock");
  }

  private Path stateDir() {
    return cluster.dir().resolve("qm-state");
  }

  private Path startPlugin(Path registrationDir) throws Exception {
    return startPlugin(registrationDir, devices.root(), stateDir(), List.of());
  }

  /** Our plugin as a host process on device tree {@code root}, with {@code flags} added. */
  Path startPlugin(Path registrationDir, Path root, Path state, List<String> flags)
      throws Exception {
    pluginStarts++;
    var log = cluster.dir().resolve("logs").resolve("qm-kubelet-plugin-" + pluginStarts + ".log");
    Files.createDirectories(log.getParent());
    Files.createDirectories(registrationDir);
    var java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    var command =
        new ArrayList<>(
            List.of(
                java,
                "-jar",
                cluster.qmJar().toString(),
                "kubelet-plugin",
                "--node=" + cluster.node(),
                "--state=" + state,
                "--registration-dir=" + registrationDir,
                "--plugin-dir=" + cluster.pluginsDir().resolve(DRIVER),
                "--cdi-dir=" + cluster.cdiDir(),
                "--device-root=" + root,
                "--kubeconfig=" + pluginKubeconfig));
    command.addAll(flags);
    plugin =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    // Not the socket file: one left by a killed plugin is there before the new one listens.
    waitUntil(
        "the plugin serves",
        Duration.ofSeconds(60),
        () -> Files.exists(log) && Files.readString(log).contains("is running."));
    line("- Started `qm kubelet-plugin` (pid " + plugin.pid() + ", log " + log + ").");
    return log;
  }

  /**
   * kill -9 of our plugin while the kubelet is between the old claim and the new one, then a new
   * plugin on the same state: its journal still holds the old claim, so the early prepare is still
   * refused, and the domain's helper, which outlives the plugin, is adopted.
   */
  private void crashAndRestart(int round) throws Exception {
    var pid = plugin.pid();
    plugin.destroyForcibly().waitFor();
    startPlugin(cluster.dir().resolve("unwatched-registry"));
    line(
        "  - replacement "
            + round
            + ": the plugin was killed with SIGKILL (pid "
            + pid
            + ") just after the replacement pod was created, and started again");
  }

  void stopPlugin() throws InterruptedException {
    if (plugin != null && plugin.isAlive()) {
      plugin.destroy();
      if (!plugin.waitFor(30, TimeUnit.SECONDS)) {
        plugin.destroyForcibly().waitFor();
      }
    }
    plugin = null;
  }

  private boolean helperRunning() throws IOException {
    var pidFile = stateDir().resolve("helpers").resolve(DOMAIN + ".pid");
    if (!Files.exists(pidFile)) {
      return false;
    }
    var pid = Long.parseLong(Files.readString(pidFile).trim().split(" ")[0]);
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  // --- waiting and reading -----------------------------------------------------------------------

  private static void waitRegistered(RecordingProxy proxy) throws Exception {
    waitUntil("the kubelet registered the driver", Duration.ofSeconds(60), proxy::registered);
  }

  private ResourceSlice waitSlicesReady(boolean ready) throws Exception {
    ResourceSlice[] found = new ResourceSlice[1];
    waitUntil(
        "a ResourceSlice with controlNodesReady=" + ready,
        Duration.ofSeconds(60),
        () -> {
          for (var s :
              admin
                  .resources(ResourceSlice.class)
                  .withLabel(KubeNames.NODE_LABEL, cluster.node())
                  .list()
                  .getItems()) {
            for (var d : s.getSpec().getDevices()) {
              var attr = d.getAttributes().get(KubeNames.CONTROL_NODES_READY);
              if (attr != null && attr.getBool() == ready) {
                found[0] = s;
                return true;
              }
            }
          }
          return false;
        });
    return found[0];
  }

  Pod waitRunning(String namespace, String name, Duration timeout) throws Exception {
    var pod =
        admin
            .pods()
            .inNamespace(namespace)
            .withName(name)
            .waitUntilCondition(
                p -> p != null && (isRunning(p) || "Failed".equals(p.getStatus().getPhase())),
                timeout.toMillis(),
                TimeUnit.MILLISECONDS);
    if (!isRunning(pod)) {
      throw new IllegalStateException("pod " + name + " failed: " + pod.getStatus());
    }
    return pod;
  }

  /**
   * Waits until {@code name} runs and says whether its device check passed; a pod without a control
   * node is a broken promise.
   */
  private Pod runsWithEveryControlNode(String name, Instant since, String after) throws Exception {
    var running = waitRunning(Pods.NAMESPACE, name, Duration.ofSeconds(180));
    var ok = stillRunning(name);
    line(
        "- "
            + name
            + " Running "
            + Duration.between(since, Instant.now()).toMillis()
            + " ms after "
            + after
            + "; every control node present in the container: "
            + ok
            + ".");
    if (!ok) {
      broken.add(name + " started without a control node");
    }
    return running;
  }

  /** Watches {@code name} for {@code period} while nvidia-uvm is missing: it must not run. */
  private Pod staysOff(String name, Duration period) throws InterruptedException {
    var until = Instant.now().plus(period);
    var pod = admin.pods().inNamespace(Pods.NAMESPACE).withName(name).get();
    while (Instant.now().isBefore(until)) {
      if (isRunning(pod)) {
        broken.add(name + " ran while nvidia-uvm was missing");
        break;
      }
      TimeUnit.MILLISECONDS.sleep(500);
      pod = admin.pods().inNamespace(Pods.NAMESPACE).withName(name).get();
    }
    return pod;
  }

  static boolean isRunning(Pod pod) {
    return pod != null && pod.getStatus() != null && "Running".equals(pod.getStatus().getPhase());
  }

  /** Whether the container, a second after it started, still runs: its device check passed. */
  boolean stillRunning(String name) throws InterruptedException {
    TimeUnit.SECONDS.sleep(1);
    var pod = admin.pods().inNamespace(Pods.NAMESPACE).withName(name).get();
    return pod.getStatus().getContainerStatuses().stream()
        .allMatch(c -> c.getState() != null && c.getState().getRunning() != null);
  }

  void deletePod(String name, boolean force) {
    var pod = admin.pods().inNamespace(Pods.NAMESPACE).withName(name);
    if (force) {
      pod.withGracePeriod(0).delete();
    } else {
      pod.delete();
    }
  }

  void waitNoPods() throws Exception {
    waitUntil(
        "every harness pod and claim is gone",
        Duration.ofSeconds(180),
        () ->
            admin
                    .pods()
                    .inNamespace(Pods.NAMESPACE)
                    .withLabel("app", "qm-harness")
                    .list()
                    .getItems()
                    .isEmpty()
                && admin
                    .resources(ResourceClaim.class)
                    .inNamespace(Pods.NAMESPACE)
                    .list()
                    .getItems()
                    .isEmpty()
                && cdiSpecs().isEmpty());
  }

  List<Path> cdiSpecs() throws IOException {
    try (var files = Files.list(cluster.cdiDir())) {
      return files.filter(f -> f.getFileName().toString().contains("quartermaster")).toList();
    }
  }

  private ResourceClaim claimOf(Pod pod) {
    var name = pod.getStatus().getResourceClaimStatuses().getFirst().getResourceClaimName();
    return admin.resources(ResourceClaim.class).inNamespace(Pods.NAMESPACE).withName(name).get();
  }

  private static String allocatedDevices(ResourceClaim claim) {
    return claim.getStatus().getAllocation().getDevices().getResults().stream()
        .map(r -> r.getPool() + "/" + r.getDevice())
        .toList()
        .toString();
  }

  Path cdiSpecOf(String uid) throws IOException {
    return cdiSpecs().stream()
        .filter(f -> f.getFileName().toString().contains(uid))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("no CDI spec for claim " + uid));
  }

  static List<String> deviceNodes(Path spec) throws IOException {
    var out = new ArrayList<String>();
    var m =
        java.util.regex.Pattern.compile("\"path\"\\s*:\\s*\"(/dev/[^\"]+)\"")
            .matcher(Files.readString(spec));
    while (m.find()) {
      if (!out.contains(m.group(1))) {
        out.add(m.group(1));
      }
    }
    return out;
  }

  static String scheduledCondition(Pod pod) {
    return pod.getStatus().getConditions().stream()
        .filter(c -> c.getType().equals("PodScheduled"))
        .map(
            c ->
                "PodScheduled="
                    + c.getStatus()
                    + (c.getMessage() == null ? "" : " (" + c.getMessage() + ")"))
        .findFirst()
        .orElse("no PodScheduled condition");
  }

  interface Check {
    boolean holds() throws Exception;
  }

  static void waitUntil(String what, Duration timeout, Check check) throws Exception {
    var until = Instant.now().plus(timeout);
    while (!check.holds()) {
      if (Instant.now().isAfter(until)) {
        throw new IllegalStateException("timed out after " + timeout + " waiting until " + what);
      }
      TimeUnit.MILLISECONDS.sleep(200);
    }
  }

  private static KubernetesClient client(Path kubeconfig) throws IOException {
    Config config = Config.fromKubeconfig(Files.readString(kubeconfig));
    return new KubernetesClientBuilder()
        .withConfig(new ConfigBuilder(config).withRequestTimeout(30_000).build())
        .build();
  }

  static void deleteTree(Path dir) throws IOException {
    if (Files.exists(dir)) {
      try (var walk = Files.walk(dir)) {
        for (var p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }

  private static String firstLine(Exception e) {
    var message = String.valueOf(e.getMessage());
    var status = message.indexOf("Message: ");
    var text = status >= 0 ? message.substring(status + 9) : message;
    var end = text.indexOf(". Received status");
    return (end > 0 ? text.substring(0, end) : text).lines().findFirst().orElse("");
  }

  void section(String title) {
    line("");
    line("## " + title);
    line("");
  }

  /** Adds a line to the report; {@code run.sh} shows {@code progress.md} as it grows. */
  synchronized void line(String text) {
    report.append(text).append('\n');
    if (cluster != null) {
      try {
        Files.writeString(
            cluster.dir().resolve("progress.md"),
            text + "\n",
            StandardCharsets.UTF_8,
            java.nio.file.StandardOpenOption.CREATE,
            java.nio.file.StandardOpenOption.APPEND);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  }
}
