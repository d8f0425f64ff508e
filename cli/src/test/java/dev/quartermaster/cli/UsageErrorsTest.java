package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 48, item 8: a bad {@code -o} printed 30 lines of usage; {@code qm gt nodes} had no "did you
 * mean"; {@code qm describ node n1} was read as {@code qm node}. One line says what is wrong, with
 * the nearest command, and where the help is; exit 2.
 */
class UsageErrorsTest {
  @TempDir Path dir;

  private record Ran(int exit, String err) {}

  private Ran run(String... args) {
    var env = TestEnvironments.of(Map.of(), dir, dir);
    var line = Invocation.read(args);
    var cl = Main.commandLine(env, line);
    var err = new StringWriter();
    cl.setErr(new PrintWriter(err));
    cl.setOut(new PrintWriter(new StringWriter()));
    int exit = cl.execute(line.forTree());
    return new Ran(exit, err.toString());
  }

  @Test
  void anUnknownCommandIsNamedWithTheNearestOne() {
    var gt = run("gt", "nodes");
    assertThat(gt.exit()).isEqualTo(2);
    assertThat(gt.err())
        .isEqualTo(
            "error: unknown command 'gt'; did you mean 'get'? (qm --help lists the commands)\n");

    var describ = run("describ", "node", "n1");
    assertThat(describ.err())
        .startsWith("error: unknown command 'describ'; did you mean 'describe'?");
    assertThat(run("frobnicate").err())
        .isEqualTo("error: unknown command 'frobnicate' (qm --help lists the commands)\n");
  }

  @Test
  void aBadOptionValueIsOneLineAndWhereTheHelpIs() {
    var bad = run("get", "nodes", "-o", "bogus");
    assertThat(bad.exit()).isEqualTo(2);
    assertThat(bad.err().lines().toList())
        .hasSize(2)
        .first()
        .asString()
        .startsWith("error: Invalid value for option '--output'")
        .contains("table, wide, yaml, json, name, jsonpath=TEMPLATE")
        .contains("'bogus'");
    assertThat(bad.err()).endsWith("see: qm get --help\n").doesNotContain("Usage:");
  }
}
