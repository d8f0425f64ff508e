package dev.quartermaster.bench;

import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.server.ApiServer;
import dev.quartermaster.server.ApiServerConfig;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.registry.ObjectRegistry;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A real server on a loopback port over a fresh SQLite store (or a given store), as `qm server`
 * would run it.
 */
final class LocalServer implements AutoCloseable {
  private final Store store;
  private final ObjectRegistry registry;
  private final ApiServer server;
  private final String token;

  private LocalServer(Store store, ObjectRegistry registry, ApiServer server, String token) {
    this.store = store;
    this.registry = registry;
    this.server = server;
    this.token = token;
  }

  static LocalServer start(Path dir) throws Exception {
    Files.createDirectories(dir);
    return start(dir, SqliteStore.open(dir.resolve("store.db")));
  }

  /** A server over {@code store}, which it closes when it closes. */
  static LocalServer start(Path dir, Store store) throws Exception {
    Files.createDirectories(dir);
    dev.quartermaster.core.files.OwnerOnly.directory(
        dir); // as qm server makes it, so it says nothing about it
    var registry = new ObjectRegistry(store, new SystemEnv());
    var server =
        ApiServer.start(
            ApiServerConfig.of(registry, dir)
                .withListen("127.0.0.1", 0)
                .withStoreRevision(store::currentRevision));
    var token = Files.readString(dir.resolve("admin.token")).trim();
    return new LocalServer(store, registry, server, token);
  }

  URI uri() {
    return URI.create("http://127.0.0.1:" + server.port());
  }

  Store store() {
    return store;
  }

  ObjectRegistry registry() {
    return registry;
  }

  String token() {
    return token;
  }

  @Override
  public void close() {
    server.close();
    store.close();
  }
}
