package dev.quartermaster.cli.describe;

import dev.quartermaster.api.allocation.GangLedger;
import dev.quartermaster.api.table.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/** The gang ledger: each gang decision in flight, its phase, and how many members and devices. */
final class GangLedgerDescriber implements Describer<GangLedger> {

  @Override
  public void describe(GangLedger ledger, DescribeContext context, Description out) {
    var rows = new ArrayList<List<String>>();
    new TreeMap<>(ledger.spec().reservations())
        .forEach(
            (gang, r) ->
                rows.add(
                    List.of(
                        gang,
                        r.phase().name(),
                        Integer.toString(r.members().size()),
                        Integer.toString(r.devices().size()),
                        Long.toString(r.generation()))));
    out.table(
        "Reservations",
        new Table(List.of("GANG", "PHASE", "MEMBERS", "DEVICES", "GENERATION"), rows));
  }
}
