package dev.quartermaster.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.cli.CliException;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.store.Txn;
import dev.quartermaster.store.compaction.HistoryPlan;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code --history} and {@code --history-bytes} on {@code qm server} and {@code qm up}, and the
 * gauge.
 */
class HistoryOptionsTest {
  @TempDir Path data;

  private static Object option(Object command, String name, String... args) {
    var cl = new CommandLine(command);
    cl.parseArgs(args);
    return cl.getCommandSpec().findOption(name).getValue();
  }

  @Test
  void bothCommandsTakeBothBoundsWithDefaults() {
    assertThat(option(new ServerCommand(null), "--history-bytes")).isEqualTo(256L << 20);
    assertThat(option(new ServerCommand(null), "--history")).isEqualTo(10_000L);
    assertThat(option(new ServerCommand(null), "--history-bytes", "--history-bytes", "1GiB"))
        .isEqualTo(1L << 30);
    assertThat(option(new ServerCommand(null), "--history-bytes", "--history-bytes", "1048576"))
        .isEqualTo(1L << 20);
    assertThat(option(new UpCommand(null), "--history-bytes", "--history-bytes", "64MiB"))
        .isEqualTo(64L << 20);
    assertThat(option(new UpCommand(null), "--history", "--history", "500")).isEqualTo(500L);
    assertThat(ByteSizeConverter.parse("256MiB")).isEqualTo(ByteSizeConverter.parse("256Mi"));
    assertThat(ByteSizeConverter.parse("2KiB")).isEqualTo(2048L);
    assertThat(ByteSizeConverter.parse("3B")).isEqualTo(3L);
    assertThat(ByteSizeConverter.parse("1GB")).isEqualTo(1_000_000_000L);
    assertThat(HistoryPlan.Limits.defaults()).isEqualTo(new HistoryPlan.Limits(10_000, 256L << 20));
  }

  @Test
  void aBadSizeIsRefusedNamingTheFlag() {
    assertThatThrownBy(
            () -> option(new ServerCommand(null), "--history-bytes", "--history-bytes", "lots"))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageContaining("--history-bytes")
        .hasMessageContaining("lots");
    assertThatThrownBy(
            () -> option(new UpCommand(null), "--history-bytes", "--history-bytes", "12XB"))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageContaining("--history-bytes")
        .hasMessageContaining("unknown unit");
    var zero = new HistoryOptions();
    zero.bytes = 0;
    assertThatThrownBy(zero::limits)
        .isInstanceOf(CliException.class)
        .hasMessageStartingWith("--history-bytes:");
    var none = new HistoryOptions();
    none.revisions = 0;
    assertThatThrownBy(none::limits)
        .isInstanceOf(CliException.class)
        .hasMessageStartingWith("--history:");
  }

  @Test
  void theHelpOfBothCommandsShowsTheByteBound() {
    for (Object command : List.of(new ServerCommand(null), new UpCommand(null))) {
      String usage = new CommandLine(command).getUsageMessage(CommandLine.Help.Ansi.OFF);
      assertThat(usage.replaceAll("\\s+", " "))
          .contains("--history=REVISIONS")
          .contains("--history-bytes=SIZE")
          .contains("default: 256MiB");
    }
  }

  /** The server compacts by bytes and reports what it kept as qm_store_history_bytes. */
  @Test
  void theServerExportsTheHistoryKept() throws Exception {
    long bound = 1L << 20;
    try (var store =
        SqliteStore.open(data.resolve(LocalServer.STORE_FILE))) { // ~2.9 MiB of history
      for (int i = 0; i < 30; i++) {
        store.txn(
            Txn.when(
                List.of(),
                List.of(new Txn.Op.Put("/history-test/k" + (i % 3), new byte[100 << 10]))));
      }
    }
    var defaults = LocalServer.Options.defaults();
    // The real clock (the HTTP server runs on it), compacting often; the first check sees all the
    // writes.
    var options =
        new LocalServer.Options(
            new HistoryPlan.Limits(10_000, bound),
            Duration.ofMillis(20),
            defaults.identity(),
            false,
            defaults.store(),
            defaults.leader(),
            defaults.plane(),
            defaults.controlView());
    try (var server =
        LocalServer.start(data, ListenAddress.parse("127.0.0.1:0"), new SystemEnv(), options)) {
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      String value = metric(server);
      while (value.equals("NaN") && System.nanoTime() < deadline) {
        Thread.sleep(20);
        value = metric(server);
      }
      long kept = (long) Double.parseDouble(value);
      assertThat(kept).isPositive().isLessThanOrEqualTo(bound);
      assertThat(server.store().compactedRevision()).isPositive();
    }
  }

  private static String metric(LocalServer server) throws Exception {
    return MetricsPage.value(server, "qm_store_history_bytes");
  }
}
