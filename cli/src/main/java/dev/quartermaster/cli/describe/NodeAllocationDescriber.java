package dev.quartermaster.cli.describe;

import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.table.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/** A node's allocation record: each recorded device and the claim holding it. */
final class NodeAllocationDescriber implements Describer<NodeAllocation> {

  @Override
  public void describe(NodeAllocation record, DescribeContext context, Description out) {
    var rows = new ArrayList<List<String>>();
    new TreeMap<>(record.spec().devices())
        .forEach(
            (device, holder) -> rows.add(List.of(device, "claim/" + holder.claim(), holder.uid())));
    out.table("Devices", new Table(List.of("DEVICE", "HELD BY", "CLAIM UID"), rows));
  }
}
