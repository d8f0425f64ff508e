package dev.quartermaster.agent.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class CdiDirsTest {
  private static final Path STATE = Path.of("/srv/qm-n1");

  @Test
  void aSimulatedNodeKeepsItsSpecsUnderItsStateAndNeverLooksAtTheHosts() {
    CdiDirs.Probe mustNotLook =
        dir -> {
          throw new AssertionError("a simulated node looked at " + dir);
        };
    assertThat(CdiDirs.defaultFor(STATE, true, mustNotLook)).isEqualTo(STATE.resolve("cdi"));
  }

  @Test
  void aRealNodeWritesTheHostsDynamicDirectoryWhenItCan() {
    assertThat(CdiDirs.defaultFor(STATE, false, dir -> dir.equals(CdiDirs.DYNAMIC)))
        .isEqualTo(Path.of("/var/run/cdi"));
    assertThat(CdiDirs.defaultFor(STATE, false, dir -> false)).isEqualTo(STATE.resolve("cdi"));
  }
}
