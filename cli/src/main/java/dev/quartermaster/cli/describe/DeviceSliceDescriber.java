package dev.quartermaster.cli.describe;

import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.table.Table;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * A slice: its node and its devices with their attributes and health. A node's IMEX channels (2,048
 * of them, alike) are counted by health, not listed, unless {@code --devices} asks for every one.
 */
final class DeviceSliceDescriber implements Describer<DeviceSlice> {

  @Override
  public void describe(DeviceSlice slice, DescribeContext context, Description out) {
    out.field("Node", slice.spec().node());
    var channels =
        slice.spec().devices().stream().filter(d -> d.deviceClass().equals("channel")).toList();
    boolean summarize = !context.everyChannel() && channels.size() > 8;
    var rows =
        slice.spec().devices().stream()
            .filter(d -> !summarize || !d.deviceClass().equals("channel"))
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
    if (summarize) {
      var byHealth =
          channels.stream()
              .collect(
                  Collectors.groupingBy(
                      d -> d.health().name(), TreeMap::new, Collectors.counting()));
      out.field(
          "Channels",
          channels.size()
              + " ("
              + byHealth.entrySet().stream()
                  .map(e -> e.getValue() + " " + e.getKey())
                  .collect(Collectors.joining(", "))
              + "; --devices lists each)");
    }
  }
}
