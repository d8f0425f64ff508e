package dev.quartermaster.cli.describe;

import dev.quartermaster.api.format.Age;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.table.Table;
import java.time.Instant;
import java.util.List;

/** An object's conditions as a table: TYPE STATUS REASON MESSAGE SINCE. */
final class ConditionsSection {
  private ConditionsSection() {}

  static void write(List<Condition> conditions, Instant now, Description out) {
    var rows =
        conditions.stream()
            .map(
                c ->
                    List.of(
                        c.type(),
                        c.status().name(),
                        orNone(c.reason()),
                        orNone(c.message()),
                        Age.since(c.lastTransition(), now)))
            .toList();
    out.table(
        "Conditions", new Table(List.of("TYPE", "STATUS", "REASON", "MESSAGE", "SINCE"), rows));
  }

  static String orNone(String s) {
    return s.isEmpty() ? Table.NONE : s;
  }
}
