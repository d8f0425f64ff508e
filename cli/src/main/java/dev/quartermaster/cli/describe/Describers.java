package dev.quartermaster.cli.describe;

import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;

/** {@code qm describe}'s text for any object: its metadata, then what its kind's describer adds. */
public final class Describers {
  private Describers() {}

  public static <T extends ApiObject> String describe(T object, DescribeContext context) {
    var out = new Description();
    MetadataSection.write(object, context.now(), out);
    forKind(Kinds.of(object)).describe(object, context, out);
    if (!Kinds.of(object).equals(Kinds.EVENT)) {
      EventsSection.write(object, context, out);
    }
    return out.render();
  }

  @SuppressWarnings("unchecked")
  static <T extends ApiObject> Describer<T> forKind(Kind<T> kind) {
    Describer<?> describer =
        switch (kind.name()) {
          case "Node" -> new NodeDescriber();
          case "DeviceSlice" -> new DeviceSliceDescriber();
          case "DeviceClass" -> new DeviceClassDescriber();
          case "ResourceClaim" -> new ResourceClaimDescriber();
          case "Workload" -> new WorkloadDescriber();
          case "Task" -> new TaskDescriber();
          case "Volume" -> new VolumeDescriber();
          case "ComputeDomain" -> new ComputeDomainDescriber();
          case "NodeAllocation" -> new NodeAllocationDescriber();
          case "GangLedger" -> new GangLedgerDescriber();
          case "Event" -> new EventDescriber();
          case "Queue" -> new QueueDescriber();
          case "PriorityClass" -> new PriorityClassDescriber();
          case "QuotaLedger" -> new QuotaLedgerDescriber();
          default -> throw new IllegalArgumentException("no describer for kind " + kind);
        };
    return (Describer<T>) describer;
  }
}
