package dev.quartermaster.cli.describe;

import dev.quartermaster.api.format.Bytes;
import dev.quartermaster.api.format.VolumeState;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.table.Table;
import dev.quartermaster.api.volume.Volume;
import java.util.List;
import java.util.TreeMap;

/**
 * A volume: what it is, and each task's hold on it with its step in the claim protocol and, when a
 * release is stuck, what it waits for and what would release it ({@link ClaimRelease}).
 */
final class VolumeDescriber implements Describer<Volume> {

  @Override
  public void describe(Volume volume, DescribeContext context, Description out) {
    var spec = volume.spec();
    out.section(
        "Spec",
        d ->
            d.field("Plugin", spec.plugin())
                .field(
                    "Capacity",
                    Bytes.human(spec.capacityBytes()) + " (" + spec.capacityBytes() + " bytes)")
                .field("Access Mode", spec.accessMode().name())
                .values(
                    "Parameters",
                    new TreeMap<>(spec.parameters())
                        .entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList()));
    var status = volume.status();
    var nodes = context.api().list(Kinds.NODE).items();
    var live = VolumeState.live(volume);
    out.section(
        "Status",
        d -> {
          d.field(
                  "Phase",
                  VolumeState.phase(volume)
                      + (VolumeState.phase(volume).equals(status.phase().name())
                          ? ""
                          : " (volume " + status.phase().name() + ")"))
              .field("External ID", status.externalId())
              .field(
                  "Provisioned",
                  status.capacityBytes() > 0 ? Bytes.human(status.capacityBytes()) : "")
              .field("Claims", VolumeState.claims(volume) + " (readers/writers)");
          if (volume.metadata().isDeleting() && live.isEmpty() && !status.externalId().isEmpty()) {
            d.field("Waiting For", ClaimRelease.deleteVolume(spec.plugin(), nodes));
          }
        });
    var rows =
        status.claims().stream()
            .map(
                c -> {
                  var task = context.api().get(Kinds.TASK, c.task());
                  var node =
                      nodes.stream().filter(n -> n.metadata().name().equals(c.node())).findFirst();
                  var waiting =
                      ClaimRelease.waitingFor(c, spec.plugin(), task, node, nodes, context.now());
                  return List.of(
                      c.task(),
                      c.node().isEmpty() ? Table.NONE : c.node(),
                      c.mode().name(),
                      VolumeState.step(c),
                      waiting.isEmpty() ? Table.NONE : waiting);
                })
            .toList();
    out.table("Claims", new Table(List.of("TASK", "NODE", "MODE", "STEP", "WAITING FOR"), rows));
    ConditionsSection.write(status.conditions(), context.now(), out);
  }
}
