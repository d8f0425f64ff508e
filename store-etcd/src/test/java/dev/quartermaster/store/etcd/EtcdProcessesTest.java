package dev.quartermaster.store.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster with a member that died at start answers with a majority, and would lose its quorum at
 * the first member a test kills (CI saw exactly that: a write after the kill timed out, then none
 * committed for a minute). The harness sees the dead member and starts the cluster again.
 */
class EtcdProcessesTest {
  @Test
  void aMemberThatDiesAtStartIsSeenAndTheClusterStartedAgainWhole(@TempDir Path dir)
      throws Exception {
    var binary = EtcdProcesses.binary();
    if (binary.isEmpty() && "true".equals(System.getenv("CI"))) {
      throw new AssertionError("CI=true and no etcd: .ci/run must install it");
    }
    assumeTrue(binary.isPresent(), EtcdProcesses.HOW_TO_INSTALL);
    // etcd, except that member m2's first start exits at once, as one whose port was taken does.
    var marker = dir.resolve("m2-failed-once");
    var wrapper = dir.resolve("etcd-once-failing");
    Files.writeString(
        wrapper,
        "#!/bin/sh\n"
            + "case \" $* \" in *\" --name m2 \"*) if [ ! -e "
            + marker
            + " ]; then touch "
            + marker
            + "; echo 'listen tcp: bind: address already in use' >&2; exit 1; fi;; esac\n"
            + "exec "
            + binary.get()
            + " \"$@\"\n");
    Files.setPosixFilePermissions(wrapper, PosixFilePermissions.fromString("rwx------"));
    try (var cluster = EtcdProcesses.start(wrapper, dir.resolve("etcd"), 3)) {
      assertThat(Files.exists(marker)).isTrue();
      assertThat(IntStream.range(0, 3).allMatch(cluster::isAlive)).isTrue();
      int leader = cluster.leader().orElseThrow();
      cluster.kill((leader + 1) % 3);
      cluster.awaitWritable(java.time.Duration.ofSeconds(30)); // two of three left: still a quorum
    }
  }
}
