package dev.quartermaster.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.store.Txn;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code qm server}/{@code qm up} export the SQLite commits as {@code qm_store_commits_total}, so
 * an operator can set them beside {@code qm_store_revision} and see how many writes share a commit.
 */
class StoreCommitsMetricTest {
  @TempDir Path data;

  @Test
  void theServerExportsItsCommits() throws Exception {
    try (var server =
        LocalServer.start(
            data,
            ListenAddress.parse("127.0.0.1:0"),
            new SystemEnv(),
            LocalServer.Options.defaults())) {
      double before = metric(server, "qm_store_commits_total");
      server
          .store()
          .txn(Txn.when(List.of(), List.of(new Txn.Op.Put("/metrics-test/k", new byte[] {1}))));
      assertThat(metric(server, "qm_store_commits_total")).isGreaterThan(before);
      assertThat(metric(server, "qm_store_revision")).isPositive();
    }
  }

  private static double metric(LocalServer server, String name) throws Exception {
    return Double.parseDouble(MetricsPage.value(server, name));
  }
}
