package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link dev.quartermaster.cli.fast.FastGet} runs {@code qm get} without the command tree; it must
 * print exactly what the tree prints, error or not, for every command line it takes, and leave
 * every other one to the tree. Run against a real server over HTTP, as a user runs them.
 */
class FastGetAgreementTest {
  /**
   * An AGE or LAST SEEN cell: the two runs happen a moment apart, so a second may tick between
   * them.
   */
  private static final Pattern AGE = Pattern.compile("\\b\\d+[smhd](\\d+[smh])?\\b");

  @TempDir Path dir;
  CliServer cli;

  @BeforeEach
  void start() throws IOException {
    cli = CliServer.start(dir);
    for (var example :
        List.of(
            "deviceclass",
            "resourceclaim",
            "task",
            "workload",
            "volume",
            "../docs/api-samples/node",
            "../docs/api-samples/event",
            "queues",
            "../docs/api-samples/quotaledger")) {
      assertThat(cli.run("apply", "-f", "examples/" + example + ".yaml").exit())
          .as(example)
          .isZero();
    }
  }

  @AfterEach
  void stop() {
    cli.close();
  }

  @Test
  void everyLineItTakesPrintsWhatTheCommandTreePrints() {
    var server = cli.env.variables().get("QM_SERVER");
    var lines =
        List.of(
            List.of("get", "deviceclasses"),
            List.of("get", "dc", "-o", "wide"),
            List.of("get", "tasks"),
            List.of("get", "task", "-owide"),
            List.of("get", "Workloads", "--output=WIDE"),
            List.of("get", "nodes", "-o=table"),
            List.of("get", "volumes", "-l", "a=b"),
            List.of("get", "tasks", "-l", "a=="),
            List.of("get", "claims", "--selector=x!=y"),
            List.of("get", "events"),
            List.of("get", "computedomains"),
            List.of("get", "nodeallocations"),
            List.of("get", "queues"),
            List.of("get", "q", "team-a", "-o", "wide"),
            List.of("get", "pc"),
            List.of("get", "priorityclasses", "urgent"),
            List.of("get", "ql"),
            List.of("get", "quotaledgers", "-o", "wide"),
            List.of("get", "volume", "nope"),
            List.of("--server", server, "get", "resourceclaims"),
            List.of("-o", "wide", "get", "tasks"),
            List.of("get", "tasks", "--server=http://127.0.0.1:1," + server),
            List.of("get", "tasks", "--server", "http://127.0.0.1:1"),
            List.of("get", "tasks", "--token-file", dir.resolve("missing.token").toString()),
            List.of("get", "tasks", "--context", "nope"),
            // JSON, the server's order and bytes re-indented (not events: oldest first).
            List.of("get", "tasks", "-ojson"),
            List.of("get", "deviceclasses", "-o", "json"),
            List.of("get", "nodes", "-o", "json"),
            List.of("get", "node", "gpu-node-1", "-o", "json"),
            List.of("get", "queues", "-o", "json", "-l", "a=b"),
            List.of("get", "quotaledgers", "-o", "json"),
            List.of("get", "volume", "nope", "-o", "json"));
    for (var line : lines) {
      var args = line.toArray(String[]::new);
      var fast = cli.runFast(args);
      assertThat(fast).as("FastGet takes %s", line).isPresent();
      var tree = cli.run(args);
      assertThat(fast.get().exit()).as("exit of %s", line).isEqualTo(tree.exit());
      assertThat(withoutAges(fast.get().out()))
          .as("stdout of %s", line)
          .isEqualTo(withoutAges(tree.out()));
      assertThat(fast.get().err()).as("stderr of %s", line).isEqualTo(tree.err());
    }
  }

  @Test
  void everyOtherLineIsLeftToTheCommandTree() {
    var lines =
        List.of(
            List.of("get"),
            List.of("get", "tasks", "-o", "yaml"),
            List.of("get", "events", "-ojson"),
            List.of("get", "tasks", "-w"),
            List.of("get", "plugins"),
            List.of("get", "tasks", "-o", "wide", "-o", "wide"),
            List.of("get", "tasks", "a", "b"),
            List.of("get", "tasks", "--bogus"),
            List.of("get", "events", "--for", "task/x"),
            List.of("get", "nodes", "-h"),
            List.of("get", "tasks", "-l", "a in (b"),
            List.of("get", "tasks", "--"),
            List.of("get", "tasks", "-o"),
            List.of("get", "gizmos"),
            List.of("get", "task", "x", "-l", "a=b"),
            List.of("get", "tasks", "--debug"),
            List.of("get", "", "x"),
            List.of("describe", "tasks"),
            List.of("get", "tasks", "-l", "-x"));
    for (var line : lines) {
      assertThat(cli.runFast(line.toArray(String[]::new))).as("FastGet leaves %s", line).isEmpty();
    }
  }

  private static String withoutAges(String text) {
    return AGE.matcher(text).replaceAll("AGE");
  }
}
