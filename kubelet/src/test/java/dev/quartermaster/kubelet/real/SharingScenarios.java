package dev.quartermaster.kubelet.real;

import dev.quartermaster.agent.devices.DeviceRoot;
import dev.quartermaster.agent.discovery.SimulatedDeviceRoot;
import dev.quartermaster.agent.effects.OsHelperProcesses;
import dev.quartermaster.agent.ledger.ClaimLedger;
import dev.quartermaster.agent.nvml.NvmlLoad;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.kubelet.kube.ApiClaimSource;
import dev.quartermaster.kubelet.kube.KubeNames;
import dev.quartermaster.kubelet.kube.NodeSlices;
import dev.quartermaster.kubelet.kube.SlicePublisher;
import dev.quartermaster.kubelet.plugin.KubeletPlugin;
import dev.quartermaster.kubelet.plugin.KubeletPluginConfig;
import dev.quartermaster.kubelet.plugin.PluginSharing;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * Issue 47 on the real kubelet: MIG slices published as partitionable devices (KEP-4815) and MPS
 * shares as a device allocated many times (KEP-5075), both beta and on by default in v1.36, so the
 * harness turns no feature gate on for them.
 *
 * <ul>
 *   <li><b>MIG</b>: two pods asking for a {@code 3g} slice of gpu-0 run on disjoint slices (the
 *       scheduler's allocations and our ledger name the same devices); a third waits, unscheduled,
 *       and runs once one of the two is gone.
 *   <li><b>MPS</b>: two pods with a share of 50 % and 20 GiB of gpu-1 run with their limits and the
 *       daemon's pipe directory in their environment (the container checks them and exits 42
 *       without); a pod asking 10 % more waits; the daemon runs while shares are held.
 *   <li><b>The naive plugin</b> publishes the same MIG slices without their counters: the scheduler
 *       over-allocates (a 4g and a 3g slice at the same memory positions), which the harness's
 *       judge sees from the real consumption; our ledger, judging by the counters, must refuse the
 *       second prepare, so the two never run at once.
 * </ul>
 */
final class SharingScenarios {
  private static final String DRIVER = "gpu.quartermaster.dev";
  private static final Duration START = Duration.ofSeconds(180);
  private static final Duration WAITS = Duration.ofSeconds(20);

  /** A container that needs its control nodes, its GPU's node and, for a MIG slice, its caps. */
  private static final String MIG_CHECK =
      "for d in /dev/nvidiactl /dev/nvidia-uvm /dev/nvidia0; do [ -c $d ] || { echo missing $d;"
          + " exit 42; }; done; ls /dev/nvidia-caps/nvidia-cap* || exit 44; sleep 3600";

  /** A container that needs its MPS limits and the daemon's pipe directory. */
  private static final String MPS_CHECK =
      "env | grep CUDA_MPS; for d in /dev/nvidiactl /dev/nvidia-uvm /dev/nvidia1; do [ -c $d ] ||"
          + " exit 42; done; [ \"$CUDA_MPS_ACTIVE_THREAD_PERCENTAGE\" = %d ] || exit 42;"
          + " [ \"$CUDA_MPS_PINNED_DEVICE_MEM_LIMIT\" = 0=%dG ] || exit 42;"
          + " [ -d \"$CUDA_MPS_PIPE_DIRECTORY\" ] || exit 43; sleep 3600";

  private final RealKubeletHarness h;
  private SimulatedDeviceRoot root;
  private Path state;

  SharingScenarios(RealKubeletHarness harness) {
    this.h = harness;
  }

  void run() throws Exception {
    h.section("Sharing: MIG slices and MPS shares (KEP-4815, KEP-5075)");
    h.stopPlugin();
    var dir = h.cluster.dir();
    for (var leftover : List.of("devroot-shared", "qm-state-shared", "qm-state-naive")) {
      RealKubeletHarness.deleteTree(dir.resolve(leftover));
    }
    root = SimulatedDeviceRoot.builder(dir.resolve("devroot-shared")).gpus(2).channels(0).build();
    state = dir.resolve("qm-state-shared");
    h.line(
        "Simulated device tree "
            + root.root()
            + ": 2 H100s; the plugin runs with `--share=gpu-0=mig --share=gpu-1=mps:4`.");
    templates();
    h.startPlugin(
        h.cluster.registryDir(),
        root.root(),
        state,
        List.of("--share=gpu-0=mig", "--share=gpu-1=mps:4"));
    published();
    mig();
    mps();
    h.stopPlugin();
    naive();
  }

  private void templates() {
    var templates =
        List.of(
            Pods.oneRequest(
                "mig-3g",
                "mig.quartermaster.dev",
                "device.attributes['gpu.quartermaster.dev'].profile.startsWith('3g.')",
                Map.of()),
            Pods.oneRequest(
                "mig-4g",
                "mig.quartermaster.dev",
                "device.attributes['gpu.quartermaster.dev'].profile.startsWith('4g.')",
                Map.of()),
            Pods.oneRequest(
                "mig-3g-first",
                "mig.quartermaster.dev",
                "device.attributes['gpu.quartermaster.dev'].profile.startsWith('3g.') &&"
                    + " device.attributes['gpu.quartermaster.dev'].start == 0",
                Map.of()),
            Pods.oneRequest(
                "mps-half",
                "mps.quartermaster.dev",
                "",
                Map.of(KubeNames.COMPUTE, "50", KubeNames.MEMORY, "20Gi")),
            Pods.oneRequest(
                "mps-tenth",
                "mps.quartermaster.dev",
                "",
                Map.of(KubeNames.COMPUTE, "10", KubeNames.MEMORY, "1Gi")));
    for (var t : templates) {
      h.admin.resource(t).forceConflicts().serverSideApply();
    }
    h.line(
        "Claim templates: "
            + templates.stream().map(t -> t.getMetadata().getName()).toList()
            + " (MIG by profile; MPS by `capacity.requests` compute and memory).");
  }

  /** Waits until the node's slices hold gpu-0's counter set, its slices and gpu-1's MPS device. */
  private void published() throws Exception {
    RealKubeletHarness.waitUntil(
        "the node's slices publish gpu-0's counters and gpu-1-mps",
        Duration.ofSeconds(60),
        () -> counterSets().contains("gpu-0") && device("gpu-1-mps").isPresent());
    var slices = slices();
    var devices = slices.stream().mapToInt(s -> size(s.getSpec().getDevices())).sum();
    var mig =
        slices.stream()
            .flatMap(s -> list(s.getSpec().getDevices()).stream())
            .filter(d -> d.getName().startsWith("gpu-0-mig-"))
            .count();
    var mps = device("gpu-1-mps").orElseThrow();
    h.line(
        "- Published: "
            + slices.size()
            + " ResourceSlices ("
            + slices.stream().filter(s -> !list(s.getSpec().getSharedCounters()).isEmpty()).count()
            + " with counter sets "
            + counterSets()
            + "), "
            + devices
            + " devices: "
            + mig
            + " MIG placements of gpu-0, each consuming its counters; gpu-1-mps with"
            + " allowMultipleAllocations="
            + mps.getAllowMultipleAllocations()
            + " and capacity "
            + mps.getCapacity().entrySet().stream()
                .map(
                    e ->
                        e.getKey()
                            + "="
                            + e.getValue().getValue()
                            + (e.getValue().getRequestPolicy() == null
                                ? ""
                                : " "
                                    + h.admin
                                        .getKubernetesSerialization()
                                        .asJson(e.getValue().getRequestPolicy())))
                .toList()
            + ".");
  }

  // --- MIG ---------------------------------------------------------------------------------------

  private void mig() throws Exception {
    h.line("");
    h.line("### Two pods, one GPU, disjoint MIG slices");
    var since = Instant.now();
    create("mig-a", "mig-3g", MIG_CHECK);
    create("mig-b", "mig-3g", MIG_CHECK);
    var a = h.waitRunning(Pods.NAMESPACE, "mig-a", START);
    var b = h.waitRunning(Pods.NAMESPACE, "mig-b", START);
    var checked = h.stillRunning("mig-a") && h.stillRunning("mig-b");
    var da = devicesOf(claimOf(a));
    var db = devicesOf(claimOf(b));
    var overlap = overlap(da, db);
    var ledger = ledgerDevices();
    var agree = ledger.containsAll(da) && ledger.containsAll(db);
    h.line(
        "- mig-a and mig-b Running "
            + Duration.between(since, Instant.now()).toMillis()
            + " ms after they were created; their slices' nodes present: "
            + checked
            + "; mig-a has "
            + da
            + ", mig-b "
            + db
            + "; memory positions shared: "
            + (overlap.isEmpty() ? "none" : overlap)
            + "; our ledger holds "
            + ledger
            + " (agrees with the scheduler: "
            + agree
            + ").");
    if (!checked || !overlap.isEmpty() || da.equals(db) || !agree) {
      h.broken.add("MIG: two 3g pods on one GPU did not run on disjoint slices the ledger holds");
    }
    create("mig-c", "mig-3g", MIG_CHECK);
    var waited = staysPending("mig-c");
    h.line("- mig-c (a third 3g slice; the GPU has two) waits: " + waited);
    h.deletePod("mig-a", true);
    since = Instant.now();
    h.waitRunning(Pods.NAMESPACE, "mig-c", START);
    h.line(
        "- mig-a deleted: mig-c Running "
            + Duration.between(since, Instant.now()).toMillis()
            + " ms later, on "
            + devicesOf(claimOf(pod("mig-c")))
            + ".");
    deleteAll();
  }

  // --- MPS ---------------------------------------------------------------------------------------

  private void mps() throws Exception {
    h.line("");
    h.line("### Two MPS pods share a GPU, with their limits");
    var since = Instant.now();
    var half = MPS_CHECK.formatted(50, 20);
    create("mps-a", "mps-half", half);
    create("mps-b", "mps-half", half);
    var a = h.waitRunning(Pods.NAMESPACE, "mps-a", START);
    var b = h.waitRunning(Pods.NAMESPACE, "mps-b", START);
    var checked = h.stillRunning("mps-a") && h.stillRunning("mps-b");
    var ra = resultOf(claimOf(a));
    var rb = resultOf(claimOf(b));
    var ledger = ledgerDevices();
    var env = mpsEnv(h.cdiSpecOf(claimOf(a).getMetadata().getUid()));
    h.line(
        "- mps-a and mps-b Running "
            + Duration.between(since, Instant.now()).toMillis()
            + " ms after they were created; their containers found CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50,"
            + " CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=20G and the pipe directory: "
            + checked
            + ".");
    h.line("  - mps-a: " + describe(ra) + "; mps-b: " + describe(rb) + ".");
    h.line("  - our ledger holds " + ledger + "; mps-a's CDI spec sets " + env + ".");
    h.line("  - the MPS daemon of gpu-1: " + daemon() + ".");
    var shares = ledger.stream().filter(d -> d.startsWith("gpu-1-mps-50pct-20gib-")).count();
    if (!checked
        || !"gpu-1-mps".equals(ra.getDevice())
        || !"gpu-1-mps".equals(rb.getDevice())
        || java.util.Objects.equals(ra.getShareID(), rb.getShareID())
        || shares != 2) {
      h.broken.add("MPS: two half shares of gpu-1 did not both run with their limits");
    }
    create("mps-c", "mps-tenth", MPS_CHECK.formatted(10, 1));
    var waited = staysPending("mps-c");
    h.line("- mps-c (10 % more; the shares hold 100 %) waits: " + waited);
    h.deletePod("mps-a", true);
    since = Instant.now();
    h.waitRunning(Pods.NAMESPACE, "mps-c", START);
    h.line(
        "- mps-a deleted: mps-c Running "
            + Duration.between(since, Instant.now()).toMillis()
            + " ms later, with "
            + describe(resultOf(claimOf(pod("mps-c"))))
            + "; our ledger holds "
            + ledgerDevices()
            + ".");
    deleteAll();
    h.line("- Every MPS pod deleted: the MPS daemon of gpu-1: " + daemon() + ".");
  }

  // --- the naive plugin
  // ----------------------------------------------------------------------------

  /**
   * Our ledger, with the counters, behind a publisher that leaves them out: what a plugin that
   * publishes MIG slices as independent devices would get from the scheduler.
   */
  private void naive() throws Exception {
    h.line("");
    h.line("### The naive plugin: MIG slices published without counters");
    var config =
        new KubeletPluginConfig(
            DRIVER,
            h.cluster.node(),
            h.cluster.dir().resolve("qm-state-naive"),
            h.cluster.registryDir(),
            h.cluster.pluginsDir().resolve(DRIVER),
            h.cluster.cdiDir(),
            DeviceRoot.at(root.root()),
            () -> new NvmlLoad.Unavailable("simulated"),
            "boot-naive",
            new SystemEnv(),
            ClaimLedger.DEFAULT_TOMBSTONE_TTL,
            OsHelperProcesses.DEFAULT_COMMAND,
            PluginSharing.parse(List.of("gpu-0=mig")));
    try (var plugin = KubeletPlugin.start(config, new ApiClaimSource(h.admin, DRIVER));
        var slices =
            new SlicePublisher(
                    new SystemEnv(),
                    h.admin,
                    DRIVER,
                    h.cluster.node(),
                    plugin::look,
                    look -> withoutCounters(NodeSlices.publication(look)))
                .start(Duration.ofSeconds(2))) {
      RealKubeletHarness.waitUntil(
          "the naive slices (no counter sets)",
          Duration.ofSeconds(60),
          () ->
              counterSets().isEmpty()
                  && slices().stream()
                      .flatMap(s -> list(s.getSpec().getDevices()).stream())
                      .anyMatch(d -> d.getName().startsWith("gpu-0-mig-4g")));
      var truth = NodeSlices.publication(plugin.look());
      create("naive-a", "mig-4g", MIG_CHECK);
      create("naive-b", "mig-3g-first", MIG_CHECK);
      RealKubeletHarness.waitUntil(
          "both naive claims allocated",
          Duration.ofSeconds(60),
          () -> allocated("naive-a") && allocated("naive-b"));
      var da = devicesOf(claimOf(pod("naive-a")));
      var db = devicesOf(claimOf(pod("naive-b")));
      var overlap = overlap(truth, da, db);
      TimeUnit.SECONDS.sleep(WAITS.toSeconds());
      var runningA = RealKubeletHarness.isRunning(pod("naive-a"));
      var runningB = RealKubeletHarness.isRunning(pod("naive-b"));
      var refused = refusal(runningA ? "naive-b" : "naive-a");
      h.line(
          "- The scheduler allocated naive-a "
              + da
              + " and naive-b "
              + db
              + ": by the GPU's real counters they share "
              + (overlap.isEmpty() ? "nothing" : overlap)
              + (overlap.isEmpty() ? "" : " — **caught** by the judge (over-allocation)")
              + ".");
      h.line(
          "- Running after "
              + WAITS.toSeconds()
              + " s: naive-a "
              + runningA
              + ", naive-b "
              + runningB
              + "; the other's prepare was refused by our ledger: "
              + refused
              + ".");
      if (overlap.isEmpty()) {
        h.broken.add("the naive counterless plugin was not caught: no over-allocation seen");
      }
      if (runningA && runningB) {
        h.broken.add("two overlapping MIG slices ran at once: the ledger let both through");
      }
      deleteAll();
    }
  }

  private static NodeSlices.Publication withoutCounters(NodeSlices.Publication real) {
    return new NodeSlices.Publication(
        real.devices().stream()
            .map(d -> new DeviceBuilder(d).withConsumesCounters(List.of()).build())
            .toList(),
        List.of());
  }

  // --- reading -----------------------------------------------------------------------------------

  private void create(String name, String template, String script) {
    h.admin
        .resource(Pods.pod(name, h.cluster.node(), h.cluster.busyboxImage(), template, script))
        .create();
  }

  private Pod pod(String name) {
    return h.admin.pods().inNamespace(Pods.NAMESPACE).withName(name).get();
  }

  /** Watches {@code name} for a while: it must stay unscheduled; says what the scheduler said. */
  private String staysPending(String name) throws InterruptedException {
    var until = Instant.now().plus(WAITS);
    var pod = pod(name);
    while (Instant.now().isBefore(until)) {
      if (RealKubeletHarness.isRunning(pod) || allocated(name)) {
        h.broken.add(name + " was allocated though nothing was left for it");
        return "no: it was allocated";
      }
      TimeUnit.MILLISECONDS.sleep(500);
      pod = pod(name);
    }
    return "unallocated for "
        + WAITS.toSeconds()
        + " s, "
        + RealKubeletHarness.scheduledCondition(pod);
  }

  private boolean allocated(String name) {
    var pod = pod(name);
    if (pod == null
        || pod.getStatus() == null
        || pod.getStatus().getResourceClaimStatuses() == null
        || pod.getStatus().getResourceClaimStatuses().isEmpty()) {
      return false;
    }
    var claim = claimOf(pod);
    return claim != null && claim.getStatus() != null && claim.getStatus().getAllocation() != null;
  }

  private ResourceClaim claimOf(Pod pod) {
    var name = pod.getStatus().getResourceClaimStatuses().getFirst().getResourceClaimName();
    return h.admin.resources(ResourceClaim.class).inNamespace(Pods.NAMESPACE).withName(name).get();
  }

  private static DeviceRequestAllocationResult resultOf(ResourceClaim claim) {
    return claim.getStatus().getAllocation().getDevices().getResults().getFirst();
  }

  private static List<String> devicesOf(ResourceClaim claim) {
    return claim.getStatus().getAllocation().getDevices().getResults().stream()
        .map(DeviceRequestAllocationResult::getDevice)
        .toList();
  }

  private static String describe(DeviceRequestAllocationResult r) {
    return r.getDevice()
        + " share "
        + r.getShareID()
        + " consuming "
        + new java.util.TreeMap<>(
            r.getConsumedCapacity() == null ? Map.of() : r.getConsumedCapacity());
  }

  /** The kubelet's last word on why {@code name}'s claim is not prepared. */
  private String refusal(String name) {
    return h
        .admin
        .v1()
        .events()
        .inNamespace(Pods.NAMESPACE)
        .withField("involvedObject.name", name)
        .list()
        .getItems()
        .stream()
        .filter(e -> String.valueOf(e.getMessage()).contains("prepar"))
        .map(e -> "\"" + e.getReason() + ": " + clip(e.getMessage()) + "\"")
        .reduce((x, y) -> y)
        .orElse("no event");
  }

  private static String clip(String text) {
    return text.length() <= 300 ? text : text.substring(0, 300) + "…";
  }

  private List<ResourceSlice> slices() {
    return h.admin
        .resources(ResourceSlice.class)
        .withLabel(KubeNames.NODE_LABEL, h.cluster.node())
        .list()
        .getItems();
  }

  private Set<String> counterSets() {
    var out = new TreeSet<String>();
    slices().forEach(s -> list(s.getSpec().getSharedCounters()).forEach(c -> out.add(c.getName())));
    return out;
  }

  private Optional<io.fabric8.kubernetes.api.model.resource.v1.Device> device(String name) {
    return slices().stream()
        .flatMap(s -> list(s.getSpec().getDevices()).stream())
        .filter(d -> d.getName().equals(name))
        .findFirst();
  }

  /** The memory positions the published devices {@code a} and {@code b} both consume. */
  private Set<String> overlap(List<String> a, List<String> b) {
    var published = new ArrayList<io.fabric8.kubernetes.api.model.resource.v1.Device>();
    slices().forEach(s -> published.addAll(list(s.getSpec().getDevices())));
    return overlap(new NodeSlices.Publication(published, List.of()), a, b);
  }

  private static Set<String> overlap(NodeSlices.Publication truth, List<String> a, List<String> b) {
    var first = positions(truth, a);
    var out = new TreeSet<String>();
    for (var p : positions(truth, b)) {
      if (first.contains(p)) {
        out.add(p);
      }
    }
    return out;
  }

  private static Set<String> positions(NodeSlices.Publication truth, List<String> devices) {
    var out = new TreeSet<String>();
    for (var d : truth.devices()) {
      if (devices.contains(d.getName())) {
        for (var c : list(d.getConsumesCounters())) {
          c.getCounters().keySet().stream()
              .filter(k -> k.startsWith("memory-"))
              .forEach(k -> out.add(c.getCounterSet() + "/" + k));
        }
      }
    }
    return out;
  }

  /**
   * The devices our ledger holds prepared, by the CDI specs it wrote for them (one per prepared
   * claim, removed at unprepare): each CDI device is named {@code <claim uid>-<ledger device>}.
   */
  private Set<String> ledgerDevices() throws Exception {
    var out = new TreeSet<String>();
    for (var spec : h.cdiSpecs()) {
      out.addAll(found(spec, "\"name\"\\s*:\\s*\"[0-9a-f-]{36}-(gpu-[^\"]+)\""));
    }
    return out;
  }

  /** The first group of each match of {@code regex} in {@code file}, in order. */
  private static List<String> found(Path file, String regex) throws Exception {
    var out = new ArrayList<String>();
    var m = java.util.regex.Pattern.compile(regex).matcher(Files.readString(file));
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  private String daemon() throws Exception {
    var pids = state.resolve("mps").resolve("daemons");
    if (!Files.isDirectory(pids)) {
      return "no pid files";
    }
    try (var files = Files.list(pids)) {
      var out = new ArrayList<String>();
      for (var f : files.filter(f -> f.toString().endsWith(".pid")).toList()) {
        var pid = Long.parseLong(Files.readString(f).trim().split("\\s+")[0]);
        out.add(
            f.getFileName()
                + " pid "
                + pid
                + (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)
                    ? " running"
                    : " gone"));
      }
      return out.isEmpty() ? "not running (no pid file)" : String.join(", ", out);
    }
  }

  private static List<String> mpsEnv(Path spec) throws Exception {
    return found(spec, "\"(CUDA_MPS_[A-Z_]+=[^\"]*)\"");
  }

  private void deleteAll() throws Exception {
    h.admin
        .pods()
        .inNamespace(Pods.NAMESPACE)
        .withLabel("app", "qm-harness")
        .withGracePeriod(0)
        .delete();
    h.waitNoPods();
  }

  private static <T> List<T> list(List<T> list) {
    return list == null ? List.of() : list;
  }

  private static int size(List<?> list) {
    return list == null ? 0 : list.size();
  }
}
