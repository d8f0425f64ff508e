package dev.quartermaster.bench;

import dev.quartermaster.store.etcd.EtcdProcesses;
import dev.quartermaster.store.etcd.EtcdStore;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The store a scale step runs on, with the server over it: SQLite in the bench's process (the
 * default, as {@code qm up}), or a 3-member etcd started for the step ({@code
 * -Dqm.bench.scaleStore=etcd}), whose members' CPU is counted apart from the server's.
 */
final class ScaleStore implements AutoCloseable {
  static final String PROPERTY = "qm.bench.scaleStore";
  static final int ETCD_MEMBERS = 3;

  private final Optional<EtcdProcesses> etcd;
  private final LocalServer server;

  private ScaleStore(Optional<EtcdProcesses> etcd, LocalServer server) {
    this.etcd = etcd;
    this.server = server;
  }

  /**
   * Whether the steps run on etcd, as the property asks (anything but sqlite or etcd is refused).
   */
  static boolean onEtcd() {
    var store = System.getProperty(PROPERTY, "sqlite");
    return switch (store) {
      case "sqlite" -> false;
      case "etcd" -> true;
      default ->
          throw new IllegalArgumentException(
              "-D" + PROPERTY + "=" + store + ": the store is sqlite (the default) or etcd");
    };
  }

  static String describe() {
    return onEtcd() ? "etcd, " + ETCD_MEMBERS + " members on this machine" : "SQLite";
  }

  static ScaleStore start(Path dir) throws Exception {
    if (!onEtcd()) {
      return new ScaleStore(Optional.empty(), LocalServer.start(dir));
    }
    var binary =
        EtcdProcesses.binary()
            .orElseThrow(() -> new IllegalStateException(EtcdProcesses.HOW_TO_INSTALL));
    var etcd = EtcdProcesses.start(binary, dir.resolve("etcd"), ETCD_MEMBERS);
    try {
      return new ScaleStore(
          Optional.of(etcd), LocalServer.start(dir, new EtcdStore(etcd.endpoints(), "/scale")));
    } catch (Exception | Error e) {
      etcd.close();
      throw e;
    }
  }

  LocalServer server() {
    return server;
  }

  /** CPU the etcd members have used so far (0 on SQLite, whose cost is the server's own). */
  long storeCpuNanos() {
    return etcd.map(e -> e.pids().stream().mapToLong(CpuTime::processNanos).sum()).orElse(0L);
  }

  @Override
  public void close() throws Exception {
    try {
      server.close();
    } finally {
      etcd.ifPresent(EtcdProcesses::close);
    }
  }
}
