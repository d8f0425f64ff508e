package dev.quartermaster.cli.describe;

import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.cli.format.Bytes;
import dev.quartermaster.cli.table.Table;
import java.util.List;
import java.util.TreeMap;

/** A volume: what it is, and each task's hold on it with its release state. */
final class VolumeDescriber implements Describer<Volume> {

  @Override
  public void describe(Volume volume, DescribeContext context, Description out) {
    var spec = volume.spec();
    out.field("Plugin", spec.plugin())
        .field("Capacity", Bytes.human(spec.capacityBytes()) + " (" + spec.capacityBytes() + " bytes)")
        .field("Access Mode", spec.accessMode().name())
        .values("Parameters", new TreeMap<>(spec.parameters()).entrySet().stream()
            .map(e -> e.getKey() + "=" + e.getValue()).toList())
        .field("External ID", volume.status().externalId());
    var rows = volume.status().claims().stream()
        .map(c -> List.of(c.task(), c.node().isEmpty() ? Table.NONE : c.node(), c.mode().name(), c.state().name()))
        .toList();
    out.table("Claims", new Table(List.of("TASK", "NODE", "MODE", "STATE"), rows));
    ConditionsSection.write(volume.status().conditions(), context.now(), out);
  }
}
