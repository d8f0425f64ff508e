package dev.quartermaster.store.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.quartermaster.store.StoreLimitException;
import dev.quartermaster.store.Txn;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * etcd's limits surface as errors that name them, before etcd answers with a bare gRPC status;
 * writes just under them go through, so the limits stated are etcd's real ones.
 */
class EtcdLimitsTest {
  @TempDir static Path dir;
  private static EtcdProcesses etcd;
  private static EtcdStore store;

  @BeforeAll
  static void start() throws Exception {
    var binary = EtcdProcesses.binary();
    if (binary.isEmpty() && "true".equals(System.getenv("CI"))) {
      throw new AssertionError("CI=true and no etcd: .ci/run must install it");
    }
    assumeTrue(binary.isPresent(), EtcdProcesses.HOW_TO_INSTALL);
    etcd = EtcdProcesses.start(binary.get(), dir.resolve("etcd"), 1);
    store = new EtcdStore(etcd.endpoints(), "/qm");
  }

  @AfterAll
  static void stop() {
    if (store != null) {
      store.close();
    }
    if (etcd != null) {
      etcd.close();
    }
  }

  private static Txn puts(String prefix, int count, int bytes) {
    var ops = new ArrayList<Txn.Op>();
    for (int i = 0; i < count; i++) {
      ops.add(new Txn.Op.Put(prefix + i, new byte[bytes]));
    }
    return Txn.when(List.of(), ops);
  }

  @Test
  void sixtyFourPutsFitInATransactionAndSixtyFiveAreRefusedNamingTheLimit() {
    assertThat(store.txn(puts("/ok/", 64, 10)).succeeded()).isTrue();
    assertThatThrownBy(() -> store.txn(puts("/over/", 65, 10)))
        .isInstanceOf(StoreLimitException.class)
        .hasMessageContaining("65 writes (130 etcd operations")
        .hasMessageContaining("limit of 128")
        .hasMessageContaining("--max-txn-ops");
    assertThat(store.range("/over/", 0).kvs()).as("nothing of it applied").isEmpty();
  }

  @Test
  void aRequestJustUnderOnePointFiveMebibytesGoesThroughAndOneOverIsRefusedNamingTheLimit() {
    assertThat(store.txn(puts("/big-ok/", 1, 1_500_000)).succeeded()).isTrue();
    assertThatThrownBy(() -> store.txn(puts("/big-over/", 2, 800_000)))
        .isInstanceOf(StoreLimitException.class)
        .hasMessageContaining("over etcd's request limit of 1572864 bytes")
        .hasMessageContaining("--max-request-bytes");
    assertThat(store.range("/big-over/", 0).kvs()).isEmpty();
  }
}
