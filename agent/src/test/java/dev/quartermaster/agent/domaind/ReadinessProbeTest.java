package dev.quartermaster.agent.domaind;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent's readiness check against a real daemon socket, and against one that never answers. */
class ReadinessProbeTest {
  @TempDir Path dir;

  @Test
  void aDaemonIsStartingUntilItsStartupHasPassedThenReady() throws Exception {
    try (var ready =
            DomainDaemonServer.start("nvlink-a", "node-1", dir.resolve("a.sock"), Duration.ZERO);
        var starting =
            DomainDaemonServer.start(
                "nvlink-b", "node-1", dir.resolve("b.sock"), Duration.ofHours(1))) {
      assertThat(ReadinessProbe.ask(dir.resolve("a.sock")))
          .isEqualTo(new DaemonAnswer.Ready("nvlink-a", ProcessHandle.current().pid()));
      assertThat(ReadinessProbe.ask(dir.resolve("b.sock")))
          .isEqualTo(new DaemonAnswer.Starting("nvlink-b", ProcessHandle.current().pid()));
    }
    assertThat(dir.resolve("a.sock")).as("removed when the daemon stops").doesNotExist();
  }

  @Test
  void noSocketOrASocketNobodyAnswersIsSilentWithinTheTimeout() throws Exception {
    assertThat(ReadinessProbe.ask(dir.resolve("none.sock")))
        .isInstanceOf(DaemonAnswer.Silent.class);
    try (var stuck = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      stuck.bind(
          UnixDomainSocketAddress.of(
              dir.resolve("stuck.sock"))); // listens, never accepts or writes
      assertThat(ReadinessProbe.ask(dir.resolve("stuck.sock")))
          .isEqualTo(new DaemonAnswer.Silent("no answer"));
    }
  }

  @Test
  void answersThatAreNotTheProtocolAreSilent() {
    assertThat(ReadinessProbe.parse("READY a b notapid")).isInstanceOf(DaemonAnswer.Silent.class);
    assertThat(ReadinessProbe.parse("HELLO"))
        .isEqualTo(new DaemonAnswer.Silent("unexpected answer 'HELLO'"));
  }

  @Test
  void aSocketPathTooLongForLinuxIsRefusedByName() {
    var deep = dir.resolve("x".repeat(120) + ".sock");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> DomainDaemonServer.start("a", "n", deep, Duration.ZERO))
        .hasMessageContaining("a Unix socket path may have at most 107");
  }
}
