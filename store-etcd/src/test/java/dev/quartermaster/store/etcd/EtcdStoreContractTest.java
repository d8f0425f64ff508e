package dev.quartermaster.store.etcd;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.quartermaster.core.net.LoopbackPorts;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.StoreContractTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;

/**
 * The Store contract, unchanged, against a real etcd process per store (started as a user would, on
 * free loopback ports, its data in the test's directory; a reopen in another JVM finds it through
 * the endpoint written there). Without etcd the tests skip, saying how to install it; under {@code
 * CI=true} a missing etcd fails them.
 */
class EtcdStoreContractTest extends StoreContractTest {
  private static final Map<Path, Process> RUNNING = new ConcurrentHashMap<>();

  static Optional<Path> etcd() {
    var given = Optional.ofNullable(System.getenv("QM_ETCD")).map(Path::of);
    return given.or(
        () ->
            List.of("/usr/local/bin/etcd", "/usr/bin/etcd").stream()
                .map(Path::of)
                .filter(Files::isExecutable)
                .findFirst());
  }

  @Override
  protected Store openStore(Path dir) {
    var binary = etcd();
    if (binary.isEmpty() && "true".equals(System.getenv("CI"))) {
      throw new AssertionError("CI=true and no etcd: .ci/run must install it");
    }
    assumeTrue(
        binary.isPresent(),
        "no etcd here: run .ci/install-etcd.sh (etcd 3.5 into /usr/local/bin) or set QM_ETCD");
    try {
      int client = freePort();
      int peer = freePort();
      var url = "http://127.0.0.1:" + client;
      var process =
          new ProcessBuilder(
                  binary.get().toString(),
                  "--name",
                  "t",
                  "--data-dir",
                  dir.resolve("etcd").toString(),
                  "--listen-client-urls",
                  url,
                  "--advertise-client-urls",
                  url,
                  "--listen-peer-urls",
                  "http://127.0.0.1:" + peer,
                  "--initial-advertise-peer-urls",
                  "http://127.0.0.1:" + peer,
                  "--initial-cluster",
                  "t=http://127.0.0.1:" + peer,
                  "--log-level",
                  "error")
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("etcd.log").toFile())
              .start();
      RUNNING.put(dir, process);
      Files.writeString(dir.resolve("endpoint"), url);
      var store = new EtcdStore(List.of(url), "/qm");
      awaitUp(store);
      return store;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  protected Store reopen(Path dir) {
    try {
      return new EtcdStore(List.of(Files.readString(dir.resolve("endpoint")).strip()), "/qm");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  protected void discard(Path dir) {
    var process = RUNNING.remove(dir);
    if (process != null) {
      process.destroyForcibly();
    }
  }

  private static void awaitUp(EtcdStore store) {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (true) {
      try {
        store.currentRevision();
        return;
      } catch (RuntimeException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
      }
    }
  }

  @AfterAll
  static void stopEtcd() {
    RUNNING.values().forEach(Process::destroyForcibly);
    RUNNING.clear();
  }

  private static int freePort() {
    return LoopbackPorts.free();
  }
}
