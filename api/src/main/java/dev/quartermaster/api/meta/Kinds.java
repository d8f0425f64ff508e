package dev.quartermaster.api.meta;

import dev.quartermaster.api.allocation.GangLedger;
import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.domain.ComputeDomain;
import dev.quartermaster.api.event.Event;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.queue.PriorityClass;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QuotaLedger;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.Workload;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/** The closed set of kinds the API serves. */
public final class Kinds {
  public static final Kind<Node> NODE = new Kind<>("Node", "nodes", "no", Node.class);
  public static final Kind<DeviceSlice> DEVICE_SLICE =
      new Kind<>("DeviceSlice", "deviceslices", "ds", DeviceSlice.class);
  public static final Kind<DeviceClass> DEVICE_CLASS =
      new Kind<>("DeviceClass", "deviceclasses", "dc", DeviceClass.class);
  public static final Kind<ResourceClaim> RESOURCE_CLAIM =
      new Kind<>("ResourceClaim", "resourceclaims", "claim", ResourceClaim.class);
  public static final Kind<Workload> WORKLOAD =
      new Kind<>("Workload", "workloads", "wl", Workload.class);
  public static final Kind<Task> TASK = new Kind<>("Task", "tasks", "t", Task.class);
  public static final Kind<Volume> VOLUME = new Kind<>("Volume", "volumes", "vol", Volume.class);
  public static final Kind<ComputeDomain> COMPUTE_DOMAIN =
      new Kind<>("ComputeDomain", "computedomains", "cd", ComputeDomain.class);
  public static final Kind<NodeAllocation> NODE_ALLOCATION =
      new Kind<>("NodeAllocation", "nodeallocations", "na", NodeAllocation.class);
  public static final Kind<GangLedger> GANG_LEDGER =
      new Kind<>("GangLedger", "gangledgers", "gl", GangLedger.class);
  public static final Kind<Event> EVENT = new Kind<>("Event", "events", "ev", Event.class);
  public static final Kind<Queue> QUEUE = new Kind<>("Queue", "queues", "q", Queue.class);
  public static final Kind<PriorityClass> PRIORITY_CLASS =
      new Kind<>("PriorityClass", "priorityclasses", "pc", PriorityClass.class);
  public static final Kind<QuotaLedger> QUOTA_LEDGER =
      new Kind<>("QuotaLedger", "quotaledgers", "ql", QuotaLedger.class);

  public static final List<Kind<?>> ALL =
      List.of(
          NODE,
          DEVICE_SLICE,
          DEVICE_CLASS,
          RESOURCE_CLAIM,
          WORKLOAD,
          TASK,
          VOLUME,
          COMPUTE_DOMAIN,
          NODE_ALLOCATION,
          GANG_LEDGER,
          EVENT,
          QUEUE,
          PRIORITY_CLASS,
          QUOTA_LEDGER);

  /** By name and by plural: every write's owner check and every request's route look one up. */
  private static final Map<String, Kind<?>> BY_NAME =
      ALL.stream().collect(Collectors.toUnmodifiableMap(Kind::name, k -> k));

  private static final Map<String, Kind<?>> BY_PLURAL =
      ALL.stream().collect(Collectors.toUnmodifiableMap(Kind::plural, k -> k));

  private Kinds() {}

  /** The kind whose manifest name is {@code name} ({@code ResourceClaim}). */
  public static Optional<Kind<?>> byName(String name) {
    return Optional.ofNullable(BY_NAME.get(name));
  }

  /** The kind whose URL plural is {@code plural} ({@code resourceclaims}). */
  public static Optional<Kind<?>> byPlural(String plural) {
    return Optional.ofNullable(BY_PLURAL.get(plural));
  }

  /** What a person may type: name, singular, plural or short name, in any case. */
  public static Optional<Kind<?>> lookup(String typed) {
    var t = typed.toLowerCase(Locale.ROOT);
    return ALL.stream()
        .filter(k -> k.singular().equals(t) || k.plural().equals(t) || k.shortName().equals(t))
        .findFirst();
  }

  @SuppressWarnings("unchecked")
  public static <T extends ApiObject> Kind<T> of(T object) {
    return (Kind<T>) object.kind();
  }
}
