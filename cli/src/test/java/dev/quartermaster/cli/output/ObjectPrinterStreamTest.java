package dev.quartermaster.cli.output;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code get -w}: a stream that starts with objects prints the plain listing's lines (see
 * KubectlHabitsTest); one that starts empty gives its columns room, so rows printed long after the
 * header still line up with it; a cell wider than any before widens its column from then on.
 */
class ObjectPrinterStreamTest {
  static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

  static Node node(String name) {
    return new Node(ObjectMeta.named(name).withCreatedAt(NOW.minusSeconds(5)), null, null);
  }

  @Test
  void inAStreamThatStartsEmptyLongerNamesArrivingLaterKeepTheColumnsAlignedWithTheHeader() {
    var out = new StringWriter();
    var printer =
        new ObjectPrinter<>(
            Kinds.NODE, OutputFormat.TABLE, Clock.fixed(NOW, ZoneOffset.UTC), new PrintWriter(out));

    printer.startStream(List.of());
    printer.streamOne(node("a"));
    printer.streamOne(node("gpu-node-17-rack-b"));
    printer.streamOne(node("b"));

    var lines = out.toString().lines().toList();
    assertThat(lines).hasSize(4);
    int second = lines.getFirst().indexOf("READY");
    assertThat(second).isGreaterThanOrEqualTo(ObjectPrinter.STREAM_MIN_WIDTH);
    for (var line : lines.subList(1, lines.size())) {
      assertThat(line.charAt(second - 1)).as(line).isEqualTo(' ');
      assertThat(line.charAt(second))
          .as("the second column starts under its header: " + line)
          .isNotEqualTo(' ');
    }
  }

  /**
   * Issue 48, item 7: a watched task printed three identical Running lines and then vanished; its
   * deletion is a row of its own, marked.
   */
  @Test
  void aDeletionIsALastRowMarkedDeleted() {
    var out = new StringWriter();
    var printer =
        new ObjectPrinter<>(
            Kinds.NODE, OutputFormat.TABLE, Clock.fixed(NOW, ZoneOffset.UTC), new PrintWriter(out));

    printer.startStream(List.of(node("a")));
    printer.streamOne(node("a"));
    printer.streamDeleted(node("a"));

    var lines = out.toString().lines().toList();
    assertThat(lines).hasSize(4);
    assertThat(lines.get(2)).doesNotContain(ObjectPrinter.DELETED);
    assertThat(lines.get(3)).startsWith("a ").endsWith(ObjectPrinter.DELETED);
  }

  @Test
  void aCellWiderThanAnyBeforeWidensItsColumnForTheRowsAfterIt() {
    var out = new StringWriter();
    var printer =
        new ObjectPrinter<>(
            Kinds.NODE, OutputFormat.TABLE, Clock.fixed(NOW, ZoneOffset.UTC), new PrintWriter(out));
    var longName = "x".repeat(ObjectPrinter.STREAM_MIN_WIDTH + 6);

    printer.startStream(List.of(node("a")));
    printer.streamOne(node(longName));
    printer.streamOne(node("b"));

    var lines = out.toString().lines().toList();
    assertThat(secondColumn(lines.get(2))).isEqualTo(longName.length() + 3);
    assertThat(secondColumn(lines.get(3)))
        .as("the row after the wide one lines up with it")
        .isEqualTo(longName.length() + 3);
  }

  /** Where the second cell of a row starts: after the first cell and its padding. */
  private static int secondColumn(String line) {
    int i = line.indexOf(' ');
    while (line.charAt(i) == ' ') {
      i++;
    }
    return i;
  }
}
