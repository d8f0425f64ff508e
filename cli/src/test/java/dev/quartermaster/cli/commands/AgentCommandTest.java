package dev.quartermaster.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.cdi.CdiDirs;
import dev.quartermaster.cli.TestEnvironments;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where {@code qm agent} puts CDI specs, as parsed from its flags (no agent is started). */
class AgentCommandTest {
  @TempDir Path dir;

  /** The host's directory is writable, as for root: only a real node may use it. */
  private static final CdiDirs.Probe ROOT = path -> path.equals(CdiDirs.DYNAMIC);

  private AgentCommand parsed(String... args) {
    var env = TestEnvironments.of(Map.of(), dir, dir.resolve("home"));
    var line = AgentCommand.command(env);
    line.parseArgs(args);
    return line.getCommand();
  }

  @Test
  void aSimulatedAgentKeepsItsSpecsUnderItsState() {
    var agent = parsed("--node", "n1", "--state", "qm-n1", "--simulated-gpus", "4");
    assertThat(
            agent.cdiDir(
                path -> {
                  throw new AssertionError("a simulated agent looked at " + path);
                }))
        .isEqualTo(dir.resolve("qm-n1/cdi"));
  }

  @Test
  void aRealAgentUsesTheHostsCdiDirectory() {
    assertThat(parsed("--node", "n1", "--state", "qm-n1").cdiDir(ROOT))
        .isEqualTo(Path.of("/var/run/cdi"));
  }

  @Test
  void theFlagWinsEitherWay() {
    assertThat(parsed("--node", "n1", "--simulated-gpus", "2", "--cdi-dir", "specs").cdiDir(ROOT))
        .isEqualTo(dir.resolve("specs"));
    assertThat(parsed("--node", "n1", "--cdi-dir", "/etc/cdi").cdiDir(ROOT))
        .isEqualTo(Path.of("/etc/cdi"));
  }
}
