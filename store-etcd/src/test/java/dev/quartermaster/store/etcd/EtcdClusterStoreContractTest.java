package dev.quartermaster.store.etcd;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.quartermaster.store.Store;
import dev.quartermaster.store.StoreContractTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;

/**
 * The Store contract, unchanged, on a 3-member etcd cluster per store with one member killed
 * ({@code kill -9}) before the test uses it: the member the client would try first. Every operation
 * must go to the two that remain, with the same results as on a healthy cluster.
 */
class EtcdClusterStoreContractTest extends StoreContractTest {
  private static final Map<Path, EtcdProcesses> RUNNING = new ConcurrentHashMap<>();

  @Override
  protected Store openStore(Path dir) {
    var binary = EtcdProcesses.binary();
    if (binary.isEmpty() && "true".equals(System.getenv("CI"))) {
      throw new AssertionError("CI=true and no etcd: .ci/run must install it");
    }
    assumeTrue(binary.isPresent(), EtcdProcesses.HOW_TO_INSTALL);
    try {
      var cluster = EtcdProcesses.start(binary.get(), dir.resolve("etcd"), 3);
      RUNNING.put(dir, cluster);
      int leader = cluster.leader().orElseThrow();
      int victim = (leader + 1) % 3;
      cluster.kill(victim);
      cluster.awaitWritable(Duration.ofSeconds(60));
      // The dead member first: the client must find the living ones.
      var endpoints = new ArrayList<String>(cluster.endpoints());
      endpoints.addFirst(endpoints.remove(victim));
      Files.writeString(dir.resolve("endpoints"), String.join(",", endpoints));
      return new EtcdStore(endpoints, "/qm");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  protected Store reopen(Path dir) {
    try {
      return new EtcdStore(
          List.of(Files.readString(dir.resolve("endpoints")).strip().split(",")), "/qm");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  protected void discard(Path dir) {
    var cluster = RUNNING.remove(dir);
    if (cluster != null) {
      cluster.close();
    }
  }

  @AfterAll
  static void stopEtcd() {
    RUNNING.values().forEach(EtcdProcesses::close);
    RUNNING.clear();
  }
}
