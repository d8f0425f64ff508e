package dev.quartermaster.cli.describe;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.format.Age;
import dev.quartermaster.api.format.ClaimState;
import dev.quartermaster.api.format.SelectorText;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.table.Table;
import java.util.List;
import java.util.TreeMap;

/**
 * A claim: what it asks for, where it is allocated, and how far each node got preparing it (and why
 * not further).
 */
final class ResourceClaimDescriber implements Describer<ResourceClaim> {

  @Override
  public void describe(ResourceClaim claim, DescribeContext context, Description out) {
    var spec = claim.spec();
    var status = claim.status();
    out.field("State", ClaimState.of(claim).toString())
        .field("Compute Domain", spec.computeDomain().orElse(""));
    // A SHARE column only where a request asks for an MPS share: other claims' tables stay as
    // they were.
    boolean shares = spec.requests().stream().anyMatch(r -> r.share().isPresent());
    var header = new java.util.ArrayList<>(List.of("NAME", "CLASS", "COUNT", "SELECTORS"));
    if (shares) {
      header.add("SHARE");
    }
    out.table(
        "Requests",
        new Table(
            header,
            spec.requests().stream()
                .map(
                    r -> {
                      var cells =
                          new java.util.ArrayList<>(
                              List.of(
                                  r.name(),
                                  r.deviceClassName(),
                                  Integer.toString(r.count()),
                                  ConditionsSection.orNone(SelectorText.of(r.selectors()))));
                      if (shares) {
                        cells.add(
                            r.share()
                                .map(x -> x.compute() + " % compute, " + x.memory() + " memory")
                                .orElse(Table.NONE));
                      }
                      return (List<String>) cells;
                    })
                .toList()));
    status
        .allocation()
        .ifPresentOrElse(
            a ->
                out.section(
                    "Allocation",
                    d ->
                        d.field("Node", a.node())
                            .table(
                                "Devices",
                                new Table(
                                    List.of("REQUEST", "DEVICE"),
                                    a.devices().stream()
                                        .map(x -> List.of(x.request(), x.device()))
                                        .toList()))),
            () -> out.field("Allocation", "<none> (waiting for the allocator)"));
    out.values("Reserved For", status.reservedFor().stream().map(t -> "task/" + t).toList());
    if (claim.metadata().isDeleting() && !status.reservedFor().isEmpty()) {
      // Why a deleting claim is still here: the tasks that use it go first.
      out.values(
          "Deletion",
          status.reservedFor().stream()
              .map(
                  t ->
                      "waits for task/"
                          + t
                          + " ("
                          + context
                              .api()
                              .get(Kinds.TASK, t)
                              .map(
                                  x ->
                                      x.status().phase().name()
                                          + x.status()
                                              .node()
                                              .or(() -> x.spec().node())
                                              .map(n -> " on " + n)
                                              .orElse(""))
                              .orElse("gone")
                          + ")")
              .toList());
    }
    var prepare =
        new TreeMap<>(status.prepare())
            .entrySet().stream()
                .map(
                    e ->
                        List.of(
                            e.getKey(),
                            e.getValue().phase().name(),
                            ConditionsSection.orNone(e.getValue().reason()),
                            ConditionsSection.orNone(String.join(",", e.getValue().cdiDevices())),
                            Age.since(e.getValue().updatedAt(), context.now())))
                .toList();
    out.table(
        "Prepare",
        new Table(List.of("NODE", "PHASE", "REASON", "CDI DEVICES", "UPDATED"), prepare));
    ConditionsSection.write(status.conditions(), context.now(), out);
  }
}
