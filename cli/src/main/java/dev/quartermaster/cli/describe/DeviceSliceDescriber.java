package dev.quartermaster.cli.describe;

import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.table.Table;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** A slice: its node and every device with its attributes and health. */
final class DeviceSliceDescriber implements Describer<DeviceSlice> {

  @Override
  public void describe(DeviceSlice slice, DescribeContext context, Description out) {
    out.field("Node", slice.spec().node());
    var rows =
        slice.spec().devices().stream()
            .map(
                d ->
                    List.of(
                        d.name(),
                        d.deviceClass(),
                        d.healthReason().isEmpty()
                            ? d.health().name()
                            : d.health().name() + " (" + d.healthReason() + ")",
                        new TreeMap<>(d.attributes())
                            .entrySet().stream()
                                .map(e -> e.getKey() + "=" + e.getValue())
                                .collect(Collectors.joining(" "))))
            .toList();
    out.table("Devices", new Table(List.of("NAME", "CLASS", "HEALTH", "ATTRIBUTES"), rows));
  }
}
