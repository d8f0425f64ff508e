package dev.quartermaster.cli.output;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.meta.Kind;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.Optional;

/**
 * {@code qm get KIND [NAME]} as a table: the kind's table as the server renders it, its narrow or
 * every column, aligned. The one printing of a listing, whether the command tree parsed the command
 * line or {@link dev.quartermaster.cli.fast.FastGet} did.
 */
public final class TableListing {
  private TableListing() {}

  public static void print(
      ApiClient api,
      Kind<?> kind,
      Optional<String> name,
      LabelSelector selector,
      boolean wide,
      Instant now,
      PrintWriter out,
      PrintWriter err) {
    var table = api.table(kind, name, selector, now);
    if (table.rows().isEmpty()) {
      err.println("No " + kind.plural() + " found.");
      err.flush();
      return;
    }
    out.print(table.view(wide).render());
    out.flush();
  }
}
