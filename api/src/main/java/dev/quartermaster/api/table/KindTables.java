package dev.quartermaster.api.table;

import dev.quartermaster.api.allocation.DeviceHolder;
import dev.quartermaster.api.allocation.GangLedger;
import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.allocation.ReservationPhase;
import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.mig.NodeMigGpus;
import dev.quartermaster.api.device.timeslice.TimeSlicedGpu;
import dev.quartermaster.api.domain.ComputeDomain;
import dev.quartermaster.api.domain.ComputeDomainStatus.Member;
import dev.quartermaster.api.domain.DomainConditions;
import dev.quartermaster.api.event.Event;
import dev.quartermaster.api.format.Age;
import dev.quartermaster.api.format.Bytes;
import dev.quartermaster.api.format.ClaimState;
import dev.quartermaster.api.format.SelectorText;
import dev.quartermaster.api.format.VolumeState;
import dev.quartermaster.api.gang.GangState;
import dev.quartermaster.api.gang.GangStatus;
import dev.quartermaster.api.gang.WorkloadGangs;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeConditions;
import dev.quartermaster.api.queue.EvictionReason;
import dev.quartermaster.api.queue.PriorityClass;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QuotaLedger;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadConditions;
import dev.quartermaster.api.workload.WorkloadStatus.GroupStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** The table of each kind: NAME first, the fields that matter for that kind, AGE last. */
public final class KindTables {
  private KindTables() {}

  /**
   * The table for {@code kind}; AGE is measured at {@code now}. A node's MIG FREE and SHARED FREE
   * need its slice and record, which a row alone does not carry: each reads {@code ?} for a node
   * with such GPUs.
   */
  public static <T extends ApiObject> KindTable<T> of(Kind<T> kind, Instant now) {
    return of(
        kind,
        now,
        n -> "?",
        n -> n.spec().mig().isEmpty() ? NodeMigGpus.NONE.freeText() : "?",
        n -> n.spec().sharing().isEmpty() ? TimeSlicedGpu.freeText(List.of()) : "?");
  }

  /**
   * The table for {@code kind}, a node's GPUS, MIG FREE and SHARED FREE cells given by {@code
   * gpus}, {@code migFree} ({@link NodeMigGpus#freeText}) and {@code sharedFree}.
   */
  @SuppressWarnings("unchecked")
  public static <T extends ApiObject> KindTable<T> of(
      Kind<T> kind,
      Instant now,
      java.util.function.Function<Node, String> gpus,
      java.util.function.Function<Node, String> migFree,
      java.util.function.Function<Node, String> sharedFree) {
    KindTable<?> table =
        switch (kind.name()) {
          case "Node" -> node(now, gpus, migFree, sharedFree);
          case "DeviceSlice" -> deviceSlice(now);
          case "DeviceClass" -> deviceClass(now);
          case "ResourceClaim" -> resourceClaim(now);
          case "Workload" -> workload(now);
          case "Task" -> task(now);
          case "Volume" -> volume(now);
          case "ComputeDomain" -> computeDomain(now);
          case "NodeAllocation" -> nodeAllocation(now);
          case "GangLedger" -> gangLedger(now);
          case "Event" -> event(now);
          case "Queue" -> queue(now);
          case "PriorityClass" -> priorityClass(now);
          case "QuotaLedger" -> quotaLedger(now);
          default -> throw new IllegalArgumentException("no table for kind " + kind);
        };
    return (KindTable<T>) table;
  }

  private static KindTable<Node> node(
      Instant now,
      java.util.function.Function<Node, String> gpus,
      java.util.function.Function<Node, String> migFree,
      java.util.function.Function<Node, String> sharedFree) {
    return table(
        now,
        List.of(
            col(
                "READY",
                (Node n) -> conditionStatus(n.status().conditions(), NodeConditions.AGENT_READY)),
            col("DEVICES", (Node n) -> devicesReady(n.status().conditions())),
            // A cordoned node must not look like any other: new work skips it.
            col(
                "SCHEDULING",
                (Node n) ->
                    n.spec().fenced()
                        ? "fenced"
                        : n.spec().unschedulable()
                                && n.metadata().labels().containsKey(Node.DRAINING_LABEL)
                            ? "draining"
                            : n.spec().unschedulable() ? "cordoned" : "enabled"),
            // Whole GPUs a claim could get now, of all the node publishes: 3/8.
            col("GPUS", gpus),
            // Compute slices a claim could still get on the node's MIG GPUs: 11/14.
            col("MIG FREE", migFree),
            // Replicas a claim could still get on the node's time-sliced GPUs: 1/4.
            col("SHARED FREE", sharedFree)),
        List.of(
            col(
                "HEARTBEAT",
                (Node n) ->
                    n.status()
                        .heartbeat()
                        .map(h -> Age.since(n.status().heartbeat(), now))
                        .orElse("")),
            col("VERSION", (Node n) -> n.status().agentVersion())));
  }

  private static KindTable<DeviceSlice> deviceSlice(Instant now) {
    return table(
        now,
        List.of(
            col("NODE", (DeviceSlice s) -> s.spec().node()),
            col("DEVICES", (DeviceSlice s) -> Integer.toString(s.spec().devices().size())),
            col(
                "HEALTHY",
                (DeviceSlice s) ->
                    Long.toString(
                        s.spec().devices().stream()
                            .filter(d -> d.health() == Device.Health.Healthy)
                            .count()))),
        List.of(col("CLASSES", (DeviceSlice s) -> countsByClass(s.spec().devices()))));
  }

  private static KindTable<DeviceClass> deviceClass(Instant now) {
    return table(
        now,
        List.of(
            col("CLASS", (DeviceClass c) -> c.spec().deviceClass()),
            col("SELECTORS", (DeviceClass c) -> SelectorText.of(c.spec().selectors()))),
        List.of());
  }

  private static KindTable<ResourceClaim> resourceClaim(Instant now) {
    return table(
        now,
        List.of(
            col("STATE", (ResourceClaim c) -> ClaimState.of(c).toString()),
            col(
                "NODE",
                (ResourceClaim c) -> c.status().allocation().map(Allocation::node).orElse("")),
            col(
                "DEVICES",
                (ResourceClaim c) ->
                    c.status()
                        .allocation()
                        .map(
                            a ->
                                a.devices().stream()
                                    .map(Allocation.AllocatedDevice::device)
                                    .collect(Collectors.joining(",")))
                        .orElse(""))),
        List.of(
            col("RESERVED-FOR", (ResourceClaim c) -> String.join(",", c.status().reservedFor())),
            col("DOMAIN", (ResourceClaim c) -> c.spec().computeDomain().orElse(""))));
  }

  private static KindTable<Workload> workload(Instant now) {
    return table(
        now,
        List.of(col("GROUPS", (Workload w) -> groups(w))),
        List.of(
            col("DOMAIN", (Workload w) -> w.spec().computeDomain().orElse("")),
            col("QUEUE", (Workload w) -> w.spec().queueName())));
  }

  private static KindTable<Queue> queue(Instant now) {
    return table(
        now,
        List.of(
            col("COHORT", (Queue q) -> q.cohort()),
            col("QUOTA", (Queue q) -> counts(q.spec().quota(), "none")),
            col("USED", (Queue q) -> counts(q.status().used(), "0")),
            col("BORROWED", (Queue q) -> counts(q.status().borrowed(), "0")),
            col("LENT", (Queue q) -> counts(q.status().lent(), "0")),
            col("PENDING", (Queue q) -> Integer.toString(q.status().pending())),
            col("ADMITTED", (Queue q) -> Integer.toString(q.status().admitted()))),
        List.of(
            col("WEIGHT", (Queue q) -> Integer.toString(q.spec().weight())),
            col("ORDERING", (Queue q) -> q.spec().ordering().name()),
            col("OVER QUOTA", (Queue q) -> q.spec().overQuota().name())));
  }

  private static KindTable<PriorityClass> priorityClass(Instant now) {
    return table(
        now,
        List.of(
            col("VALUE", (PriorityClass p) -> Integer.toString(p.spec().value())),
            col("DESCRIPTION", (PriorityClass p) -> p.spec().description())),
        List.of());
  }

  private static KindTable<QuotaLedger> quotaLedger(Instant now) {
    return table(
        now,
        List.of(
            col("QUEUES", (QuotaLedger l) -> String.join(",", l.spec().queues())),
            col("ADMITTED", (QuotaLedger l) -> Integer.toString(l.spec().admitted().size()))),
        List.of());
  }

  /** {@code gpu=16,channel=4} in class order, or {@code empty} when there is none. */
  public static String counts(Map<String, Integer> counts, String empty) {
    return counts.isEmpty()
        ? empty
        : new TreeMap<>(counts)
            .entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(","));
  }

  private static KindTable<Task> task(Instant now) {
    return table(
        now,
        List.of(
            col("PHASE", (Task t) -> t.status().phase().name(), "Succeeded".length()),
            col("NODE", (Task t) -> t.status().node().or(() -> t.spec().node()).orElse(""), 12),
            col("REASON", (Task t) -> t.status().reason(), "WaitingForAllocation".length()),
            // The restart count of the task's workload slot: how far into a crash loop it is.
            col("ATTEMPT", (Task t) -> Integer.toString(t.spec().attempt()))),
        List.of(
            col("CLAIMS", (Task t) -> String.join(",", t.spec().claims())),
            col("EXIT", (Task t) -> t.status().exitCode().map(String::valueOf).orElse(""))));
  }

  private static KindTable<Volume> volume(Instant now) {
    return table(
        now,
        List.of(
            col("PLUGIN", (Volume v) -> v.spec().plugin()),
            col("CAPACITY", (Volume v) -> Bytes.human(v.spec().capacityBytes())),
            col("ACCESS", (Volume v) -> v.spec().accessMode().name()),
            // readers/writers holding it, or letting it go
            col("CLAIMS", VolumeState::claims),
            col("PHASE", VolumeState::phase)),
        List.of(col("EXTERNAL-ID", (Volume v) -> v.status().externalId())));
  }

  private static KindTable<ComputeDomain> computeDomain(Instant now) {
    return table(
        now,
        List.of(
            // ready members / the nodes the domain spans; more members than that is said, not
            // shown as 2/1
            col("NODES", KindTables::domainNodes),
            col(
                "STATUS",
                (ComputeDomain d) ->
                    Condition.find(d.status().conditions(), DomainConditions.READY)
                        .map(c -> c.isTrue() ? "Ready" : c.reason())
                        .orElse("Pending")),
            col("CLAIMS", (ComputeDomain d) -> Integer.toString(d.status().claims().size()))),
        List.of(
            col(
                "MEMBERS",
                (ComputeDomain d) ->
                    d.status().nodes().stream()
                        .map(Member::node)
                        .collect(Collectors.joining(",")))));
  }

  /** {@code 1/2}; {@code 2 (numNodes 1)} once more nodes joined than the domain asked for. */
  static String domainNodes(ComputeDomain d) {
    int wanted = d.spec().numNodes();
    int members = d.status().nodes().size();
    return members > wanted
        ? d.status().readyNodes() + " (numNodes " + wanted + ")"
        : d.status().readyNodes() + "/" + wanted;
  }

  private static KindTable<GangLedger> gangLedger(Instant now) {
    return table(
        now,
        List.of(
            col("RESERVATIONS", (GangLedger l) -> Integer.toString(l.spec().reservations().size())),
            col(
                "HELD",
                (GangLedger l) ->
                    Long.toString(
                        l.spec().reservations().values().stream()
                            .filter(r -> r.phase() == ReservationPhase.Held)
                            .count())),
            col(
                "MEMBERS",
                (GangLedger l) ->
                    Integer.toString(
                        l.spec().reservations().values().stream()
                            .mapToInt(r -> r.members().size())
                            .sum()))),
        List.of());
  }

  private static KindTable<NodeAllocation> nodeAllocation(Instant now) {
    return table(
        now,
        List.of(
            col("DEVICES", (NodeAllocation a) -> Integer.toString(a.spec().devices().size())),
            col(
                "CLAIMS",
                (NodeAllocation a) ->
                    Long.toString(
                        a.spec().devices().values().stream()
                            .map(DeviceHolder::uid)
                            .distinct()
                            .count()))),
        List.of());
  }

  /**
   * Events as kubectl shows them: when, what kind of news, why, about what, and what was said; the
   * generated name only in the wide view, since nobody looks an event up by it.
   */
  private static KindTable<Event> event(Instant now) {
    var columns =
        List.<Column<Event>>of(
            col("LAST SEEN", (Event e) -> Age.since(Optional.of(e.spec().lastSeen()), now), 9),
            col("TYPE", (Event e) -> e.spec().type().name(), "Warning".length()),
            col("REASON", (Event e) -> e.spec().reason(), 20),
            col("OBJECT", (Event e) -> e.spec().involved().toString(), 28),
            col("COUNT", (Event e) -> Long.toString(e.spec().count())),
            col("MESSAGE", (Event e) -> e.spec().message().replace('\n', ' ')));
    var wide =
        List.<Column<Event>>of(
            col("SOURCE", (Event e) -> e.spec().source()),
            col("FIRST SEEN", (Event e) -> Age.since(Optional.of(e.spec().firstSeen()), now)),
            col("NAME", (Event e) -> e.metadata().name()));
    return new KindTable<>(columns, wide, Event.CHRONOLOGICAL);
  }

  /** NAME, the kind's columns, AGE; wide adds the kind's extras, then REVISION, UID and LABELS. */
  private static <T extends ApiObject> KindTable<T> table(
      Instant now, List<Column<T>> middle, List<Column<T>> wideExtras) {
    var columns = new ArrayList<Column<T>>();
    columns.add(new Column<>("NAME", o -> o.metadata().name()));
    columns.addAll(middle);
    columns.add(new Column<>("AGE", o -> Age.since(o.metadata().createdAt(), now)));
    var wide = new ArrayList<>(wideExtras);
    wide.add(new Column<>("REVISION", o -> Long.toString(o.metadata().revision())));
    wide.add(new Column<>("UID", o -> o.metadata().uid()));
    wide.add(new Column<>("LABELS", o -> labels(o.metadata().labels())));
    return new KindTable<>(columns, wide);
  }

  private static <T> Column<T> col(String header, java.util.function.Function<T, String> cell) {
    return new Column<>(header, cell);
  }

  private static <T> Column<T> col(
      String header, java.util.function.Function<T, String> cell, int streamWidth) {
    return new Column<>(header, cell, streamWidth);
  }

  private static String conditionStatus(List<Condition> conditions, String type) {
    return Condition.find(conditions, type).map(c -> c.status().name()).orElse("Unknown");
  }

  /** "Ready", or why not, as precisely as the agent said it ("missing /dev/nvidia-uvm"). */
  static String devicesReady(List<Condition> conditions) {
    return Condition.find(conditions, NodeConditions.DEVICES_READY)
        .map(
            c ->
                c.isTrue()
                    ? "Ready"
                    : !c.message().isEmpty()
                        ? c.message()
                        : !c.reason().isEmpty() ? c.reason() : "NotReady")
        .orElse("Unknown");
  }

  /**
   * {@code head 1/1, workers 0/4 gang waiting}: per group, in spec order, the tasks placed on a
   * node over the replicas (a task that waits for devices is not counted), and a gang that waits
   * for devices (a workload gang on each of its groups), is partly placed ({@code gang partial}),
   * or that no state of the fleet would hold ({@code gang never fits}); then, once, a workload its
   * queue has not admitted ({@code (waiting for admission)}) or is evicting ({@code (evicted)}),
   * which waits for no device.
   */
  static String groups(Workload w) {
    Map<String, GroupStatus> observed =
        w.status().groups().stream()
            .collect(Collectors.toMap(GroupStatus::name, g -> g, (a, b) -> b));
    var gangs = WorkloadGangs.statuses(w.status());
    var admission = admissionNote(w);
    return w.spec().groups().stream()
            .map(
                g -> {
                  var o = Optional.ofNullable(observed.get(g.name()));
                  var note =
                      WorkloadGangs.ofGroup(w.spec(), g.name())
                          .map(gang -> gangs.get(gang.name()))
                          .filter(gang -> admission.isEmpty())
                          .flatMap(KindTables::gangNote);
                  return g.name()
                      + " "
                      + o.map(GroupStatus::placed).orElse(0)
                      + "/"
                      + g.replicas()
                      + note.map(n -> " " + n).orElse("");
                })
            .collect(Collectors.joining(", "))
        + admission.map(a -> " (" + a + ")").orElse("");
  }

  /**
   * {@code waiting for admission} or {@code evicted}, from the workload's {@code Admitted}
   * condition; empty when admitted, finished, or not queued at all.
   */
  private static Optional<String> admissionNote(Workload w) {
    return Condition.find(w.status().conditions(), WorkloadConditions.ADMITTED)
        .filter(c -> !c.isTrue() && !c.reason().equals(WorkloadConditions.FINISHED))
        .map(
            c ->
                java.util.Arrays.stream(EvictionReason.values())
                        .anyMatch(r -> r.name().equals(c.reason()))
                    ? "evicted"
                    : "waiting for admission");
  }

  /** {@code gang partial}, {@code gang never fits} or {@code gang waiting}; empty once placed. */
  private static Optional<String> gangNote(GangStatus gang) {
    if (gang.state() == GangState.Partial) {
      return Optional.of("gang partial");
    }
    if (!gang.waitsForPlacement()) {
      return Optional.empty();
    }
    return Optional.of(
        gang.reason().equals(GangStatus.NEVER_FITS) ? "gang never fits" : "gang waiting");
  }

  private static String countsByClass(List<Device> devices) {
    var counts =
        new TreeMap<String, Long>(
            devices.stream()
                .collect(Collectors.groupingBy(Device::deviceClass, Collectors.counting())));
    return counts.entrySet().stream()
        .map(e -> e.getKey() + "=" + e.getValue())
        .collect(Collectors.joining(","));
  }

  static String labels(Map<String, String> labels) {
    return new TreeMap<>(labels)
        .entrySet().stream()
            .map(e -> e.getKey() + "=" + e.getValue())
            .collect(Collectors.joining(","));
  }
}
