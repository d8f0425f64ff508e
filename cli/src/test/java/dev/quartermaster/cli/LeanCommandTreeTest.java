package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process builds only the command it runs ({@link Main#commandLine(CliEnvironment, String...)});
 * the table it picks from must name each command as the command names itself, or a command would
 * run under no name or not be found.
 */
class LeanCommandTreeTest {
  @TempDir Path dir;

  @Test
  void theTableNamesEveryCommandAsItNamesItself() {
    var env = TestEnvironments.of(Map.of(), dir, dir);
    var whole = Main.commandLine(env).getSubcommands().keySet();
    assertThat(whole)
        .containsExactlyInAnyOrderElementsOf(
            java.util.stream.Stream.concat(
                    Main.commands().keySet().stream(), java.util.stream.Stream.of("help"))
                .toList());
    for (var name : Main.commands().keySet()) {
      var lean = Main.commandLine(env, Invocation.read(name, "--help")).getSubcommands().keySet();
      var expected = name.equals("completion") ? whole : java.util.Set.of(name, "help");
      assertThat(lean).as(name).containsExactlyInAnyOrderElementsOf(expected);
    }
  }

  @Test
  void helpNoCommandAndUnknownOnesSeeTheWholeTree() {
    var env = TestEnvironments.of(Map.of(), dir, dir);
    int all = Main.commands().size() + 1;
    assertThat(Main.commandLine(env).getSubcommands()).hasSize(all);
    assertThat(Main.commandLine(env, Invocation.read()).getSubcommands()).hasSize(all);
    assertThat(Main.commandLine(env, Invocation.read("--help")).getSubcommands()).hasSize(all);
    assertThat(Main.commandLine(env, Invocation.read("help", "get")).getSubcommands()).hasSize(all);
    assertThat(Main.commandLine(env, Invocation.read("gte", "nodes")).getSubcommands())
        .hasSize(all);
  }
}
