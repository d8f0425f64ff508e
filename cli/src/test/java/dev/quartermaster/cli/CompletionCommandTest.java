package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.cli.config.ApiConnector;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code qm completion}: a script bash can load that knows every command, subcommand and flag. */
class CompletionCommandTest {
  @TempDir Path dir;

  private String run(String... args) {
    var env =
        new CliEnvironment(
            Map.of(),
            dir,
            dir,
            new ByteArrayInputStream(new byte[0]),
            Clock.systemUTC(),
            ApiConnector.http());
    var out = new StringWriter();
    var cl = Main.commandLine(env);
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(out, true));
    assertThat(cl.execute(args)).as(out.toString()).isZero();
    return out.toString();
  }

  @Test
  void bashCompletesCommandsSubcommandsAndFlags() throws Exception {
    var script = run("completion", "bash");
    assertThat(script)
        .contains("complete -F")
        .contains("drain")
        .contains("--for")
        .contains("--wait")
        // KIND completes to every kind, the queue kinds included.
        .contains("queues")
        .contains("priorityclasses")
        .contains("quotaledgers");
    var file = dir.resolve("qm.bash");
    java.nio.file.Files.writeString(file, script);
    // bash itself must accept it.
    var bash = new ProcessBuilder("bash", "-n", file.toString()).redirectErrorStream(true).start();
    assertThat(bash.waitFor()).as(new String(bash.getInputStream().readAllBytes())).isZero();
  }

  @Test
  void zshLoadsTheBashScriptThroughBashcompinit() {
    assertThat(run("completion", "zsh"))
        .startsWith("# qm completion for zsh")
        .contains("bashcompinit")
        .contains("complete -F");
  }
}
