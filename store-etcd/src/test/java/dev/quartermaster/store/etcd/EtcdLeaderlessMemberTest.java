package dev.quartermaster.store.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.quartermaster.store.StoreException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member without a leader (the majority gone, or, in the partitions harness, the member cut off
 * from it) is asked with etcd's require-leader header: it refuses at once, and the store says what
 * is wrong instead of "did not answer within 10 s" (what a call to it said before, having hung
 * until the deadline; a watch on it stayed silent). With the rest of the cluster reachable, the
 * refused call goes to another member: the harness's etcd-minority schedules show that.
 */
class EtcdLeaderlessMemberTest {
  @TempDir Path dir;

  @Test
  void aMemberWithoutALeaderIsNamedAsSuch() throws Exception {
    var binary = EtcdProcesses.binary();
    if (binary.isEmpty() && "true".equals(System.getenv("CI"))) {
      throw new AssertionError("CI=true and no etcd: .ci/run must install it");
    }
    assumeTrue(binary.isPresent(), EtcdProcesses.HOW_TO_INSTALL);
    try (var cluster = EtcdProcesses.start(binary.get(), dir.resolve("etcd"), 3)) {
      int leader = cluster.leader().orElseThrow();
      int survivor = (leader + 1) % 3;
      for (int i = 0; i < 3; i++) {
        if (i != survivor) {
          cluster.kill(i);
        }
      }
      try (var store = new EtcdStore(List.of(cluster.endpoints().get(survivor)), "/qm")) {
        var e = catchThrowableOfType(StoreException.class, store::currentRevision);
        assertThat(e).hasMessageContaining("no member that answered has a leader");
      }
    }
  }
}
