package dev.quartermaster.agent.effects;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A restarted plugin adopts a compute-domain helper from its pid file only when the process with
 * that pid is the very one recorded: same start tick of {@code /proc/<pid>/stat}, same boot. A pid
 * now used by another program (here: a live {@code sleep} that is not the helper) is not adopted.
 */
@Timeout(60)
class HelperAdoptionTest {
  private static final List<String> HELPER = List.of("sleep", "infinity");

  @TempDir Path dir;
  private Process other;

  @AfterEach
  void stop() throws Exception {
    if (other != null) {
      other.destroyForcibly();
      other.waitFor();
    }
  }

  private Process otherProgram() throws Exception {
    other = new ProcessBuilder("sleep", "600").start();
    return other;
  }

  private void record(String domain, String line) throws Exception {
    Files.writeString(dir.resolve(domain + ".pid"), line + "\n", StandardCharsets.UTF_8);
  }

  @Test
  void theRecordIsThePidWithItsStartTickAndBoot() throws Exception {
    var helpers = new OsHelperProcesses(dir, HELPER, Path.of("/proc"), "boot-1");
    helpers.start("cd-1");
    var parts = Files.readString(dir.resolve("cd-1.pid")).strip().split(" ");
    var pid = Long.parseLong(parts[0]);
    assertThat(ProcessStart.parse(parts[1]))
        .isEqualTo(ProcessStart.of(Path.of("/proc"), pid, "boot-1"))
        .get()
        .extracting(ProcessStart::bootId)
        .isEqualTo("boot-1");

    assertThat(new OsHelperProcesses(dir, HELPER, Path.of("/proc"), "boot-1").running())
        .containsExactly("cd-1");
    new OsHelperProcesses(dir, HELPER, Path.of("/proc"), "boot-1").stop("cd-1");
  }

  @Test
  void aReusedPidIsNotAdopted() throws Exception {
    var reused = otherProgram();
    var start = ProcessStart.of(Path.of("/proc"), reused.pid(), "boot-1").orElseThrow();
    // The helper recorded this pid, but started a tick earlier: another process has it now.
    record("cd-1", reused.pid() + " " + new ProcessStart(start.ticks() - 1, "boot-1"));
    // ... or in another boot.
    record("cd-2", reused.pid() + " " + new ProcessStart(start.ticks(), "boot-0"));

    var helpers = new OsHelperProcesses(dir, HELPER, Path.of("/proc"), "boot-1");
    assertThat(helpers.running()).isEmpty();
    assertThat(dir.resolve("cd-1.pid")).doesNotExist();
    assertThat(dir.resolve("cd-2.pid")).doesNotExist();
    assertThat(reused.isAlive()).isTrue();
  }

  /** A start that could not be read when the helper began proves nothing: never adopted. */
  @Test
  void aPidWithoutItsStartIsNotAdopted() throws Exception {
    var someone = otherProgram();
    record("cd-1", someone.pid() + " -");

    assertThat(new OsHelperProcesses(dir, HELPER, Path.of("/proc"), "boot-1").running()).isEmpty();
  }

  @Test
  void theStartTickIsField22CountedAfterTheCommand() {
    var stat =
        "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 5000 100";
    assertThat(ProcessStart.parseTicks(stat)).contains(987654L);
    assertThat(ProcessStart.parseTicks("4242 (x) S 1")).isEmpty();
  }
}
