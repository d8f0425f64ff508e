package dev.quartermaster.cli.output;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.ListPage;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.table.Table;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * {@code qm get KIND [NAME]} as a table: the kind's table as the server renders it, its narrow or
 * every column, aligned. The one printing of a listing, whether the command tree parsed the command
 * line or {@link dev.quartermaster.cli.fast.FastGet} did.
 */
public final class TableListing {
  private TableListing() {}

  /**
   * Prints the table; a list (no {@code name}) in pages of {@code chunk} objects (0: in one), each
   * printed as it comes, so the first rows of 10,000 nodes show at once. Every page is read at the
   * first page's revision; the columns are as wide as the first page that has rows needs (a wider
   * cell later pushes its row's next cells right, as kubectl's chunks do).
   */
  public static void print(
      ApiClient api,
      Kind<?> kind,
      Optional<String> name,
      LabelSelector selector,
      boolean wide,
      Instant now,
      int chunk,
      PrintWriter out,
      PrintWriter err) {
    if (name.isPresent() || chunk <= 0) {
      var table = api.table(kind, name, selector, now);
      if (table.rows().isEmpty()) {
        none(kind, err);
        return;
      }
      out.print(table.view(wide).render());
      out.flush();
      return;
    }
    var page = ListPage.first(chunk);
    List<Integer> widths = List.of();
    while (true) {
      var table = api.table(kind, selector, page, now);
      var view = table.view(wide);
      if (widths.isEmpty() && !view.rows().isEmpty()) {
        widths = view.widths();
        out.print(Table.line(view.headers(), widths));
      }
      for (var row : view.rows()) {
        out.print(Table.line(row, widths));
      }
      out.flush();
      var next = table.continueToken();
      if (next.isEmpty()) {
        break;
      }
      page = new ListPage(chunk, next);
    }
    if (widths.isEmpty()) {
      none(kind, err);
    }
  }

  private static void none(Kind<?> kind, PrintWriter err) {
    err.println("No " + kind.plural() + " found.");
    err.flush();
  }
}
