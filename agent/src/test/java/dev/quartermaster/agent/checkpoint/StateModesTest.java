package dev.quartermaster.agent.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.runtime.PodmanOptions;
import dev.quartermaster.agent.runtime.TaskImage;
import dev.quartermaster.agent.runtime.TaskLaunch;
import dev.quartermaster.agent.tasks.TaskRuntimes;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.core.files.BootScopedFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's state is owner-only: its directory 0700, ledgers, checkpoints, specs and task output
 * 0600.
 */
class StateModesTest {
  @TempDir Path tmp;

  @Test
  void theStateDirIsTightenedTo0700AndItsLockIs0600() throws Exception {
    var state =
        Files.createDirectory(
            tmp.resolve("state"),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));

    try (var lock = StateDirLock.acquire(state)) {
      assertThat(mode(state)).isEqualTo("rwx------");
      assertThat(mode(lock.path())).isEqualTo("rw-------");
    }
  }

  /**
   * The DaemonSet's state directory is a {@code DirectoryOrCreate} host path, which the kubelet
   * makes 0755: it is set to 0700 before anything is written, and that is no warning. One that
   * already holds state and is open to others is.
   */
  @Test
  void aFreshDirectoryMadeWiderBySomeoneElseIsSetQuietlyAndAUsedOneIsWarnedOf() throws Exception {
    var wide = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x"));
    var fresh = Files.createDirectory(tmp.resolve("fresh"), wide);
    assertThat(StateDirLock.ownerOnly(fresh)).isEmpty();
    assertThat(mode(fresh)).isEqualTo("rwx------");

    var used = Files.createDirectory(tmp.resolve("used"), wide);
    Files.writeString(used.resolve("ledger.journal"), "");
    assertThat(StateDirLock.ownerOnly(used)).get().asString().contains("rwxr-xr-x -> rwx------");
    assertThat(mode(used)).isEqualTo("rwx------");

    assertThat(StateDirLock.ownerOnly(tmp.resolve("absent"))).isEmpty();
    assertThat(mode(tmp.resolve("absent"))).isEqualTo("rwx------");
  }

  /** A temp file a crashed write left behind, readable by others. */
  private Path wideLeftover(String name, String content) throws Exception {
    var temp = Files.writeString(tmp.resolve(name), content);
    Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rw-r--r--"));
    return temp;
  }

  @Test
  void atomicallyWrittenFilesAre0600EvenOverAWiderLeftoverTemp() throws Exception {
    var target = tmp.resolve("ledger");
    var temp = wideLeftover(".ledger.tmp", "leftover");

    AtomicLedgerFile.writeAtomically(target, temp, "record\n".getBytes(StandardCharsets.UTF_8));

    assertThat(mode(target)).isEqualTo("rw-------");
  }

  @Test
  void bootScopedFilesAre0600EvenOverAWiderLeftoverTempAndReplaceWhole() throws Exception {
    var target = tmp.resolve("spec.json");
    var temp = wideLeftover(".spec.json.tmp", "a longer leftover of a crashed write");

    BootScopedFile.replace(target, temp, "new\n".getBytes(StandardCharsets.UTF_8));

    assertThat(mode(target)).isEqualTo("rw-------");
    assertThat(Files.readString(target)).isEqualTo("new\n");
    assertThat(temp).doesNotExist();
  }

  @Test
  void taskOutputIs0600InA0700Directory() throws Exception {
    var runtimes =
        new TaskRuntimes(
            new SystemEnv(), tmp.resolve("cdi"), PodmanOptions.defaults(), tmp.resolve("run"));
    var output = tmp.resolve("logs").resolve("t.out");

    var task =
        runtimes
            .runtime(TaskRuntimes.NOOP)
            .orElseThrow()
            .start(
                new TaskLaunch(
                    "t",
                    List.of("true"),
                    Map.of("SECRET", "x"),
                    List.of(),
                    List.of(),
                    new TaskImage.Host(),
                    output));

    assertThat(task).isNotNull();
    assertThat(mode(output.getParent())).isEqualTo("rwx------");
    assertThat(mode(output)).isEqualTo("rw-------");
  }

  private static String mode(Path p) throws Exception {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
  }
}
