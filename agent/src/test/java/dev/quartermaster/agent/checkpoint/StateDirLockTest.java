package dev.quartermaster.agent.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StateDirLockTest {
  @Test
  void writesItsPidAndRefusesASecondHolderSayingWho(@TempDir Path dir) throws Exception {
    try (var lock = StateDirLock.acquire(dir)) {
      assertThat(Files.readString(lock.path()))
          .isEqualTo("pid " + ProcessHandle.current().pid() + "\n");
      assertThatThrownBy(() -> StateDirLock.acquire(dir))
          .isInstanceOfSatisfying(
              StateDirLockedException.class,
              e -> {
                assertThat(e.getMessage())
                    .contains("pid " + ProcessHandle.current().pid())
                    .contains(dir.toString());
              });
    }
    // Released on close: a later agent gets it.
    try (var again = StateDirLock.acquire(dir)) {
      assertThat(again.path()).exists();
    }
  }
}
