package dev.quartermaster.cli.commands;

import dev.quartermaster.cli.CliException;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.server.ApiServer;
import dev.quartermaster.server.ApiServerConfig;
import dev.quartermaster.store.StoreException;
import dev.quartermaster.store.registry.ObjectRegistry;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The pieces {@code qm server} runs: the SQLite store in the data directory, the object registry
 * over it, and the HTTP API server. Closing stops them in reverse order: no request reaches the store
 * after it is closed.
 */
public final class LocalServer implements AutoCloseable {
  public static final String STORE_FILE = "store.db";

  private final SqliteStore store;
  private final ApiServer server;
  private final Path dataDir;
  private final Path tokenFile;
  private final URI uri;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final CountDownLatch stopped = new CountDownLatch(1);

  private LocalServer(SqliteStore store, ApiServer server, Path dataDir, Path tokenFile, URI uri) {
    this.store = store;
    this.server = server;
    this.dataDir = dataDir;
    this.tokenFile = tokenFile;
    this.uri = uri;
  }

  /** Opens the store and starts serving; a taken port is reported naming the address. */
  public static LocalServer start(Path dataDir, ListenAddress listen, Env env) {
    try {
      Files.createDirectories(dataDir);
    } catch (IOException e) {
      throw new CliException("cannot prepare data directory " + dataDir + ": " + e.getMessage());
    }
    SqliteStore store;
    try {
      store = SqliteStore.open(dataDir.resolve(STORE_FILE));
    } catch (StoreException e) {
      // e.g. another qm server holds this data directory: the store's message says exactly that
      throw new CliException(e.getMessage() + " (is another qm server using " + dataDir + "? pick another with --data)");
    }
    try {
      var registry = new ObjectRegistry(store, env);
      var config = ApiServerConfig.of(registry, dataDir).withListen(listen.host(), listen.port()).withEnv(env)
          .withStoreRevision(store::currentRevision);
      var server = ApiServer.start(config);
      // The server has created the admin token by now, so the config file written next points at a real file.
      return new LocalServer(store, server, dataDir, server.adminTokenFile(), listen.clientUri(server.port()));
    } catch (IOException | RuntimeException e) {
      store.close();
      if (isBindFailure(e)) {
        throw new CliException("cannot listen on " + listen + ": address already in use"
            + " (is another qm server running? pick another address with --listen)");
      }
      throw e instanceof IOException io
          ? new UncheckedIOException("cannot start the API server on " + listen + ": " + io.getMessage(), io)
          : (RuntimeException) e;
    }
  }

  /** The URL clients on this machine use. */
  public URI uri() {
    return uri;
  }

  public Path dataDir() {
    return dataDir;
  }

  public Path tokenFile() {
    return tokenFile;
  }

  /** Blocks until {@link #close} has finished. */
  public void awaitStopped() throws InterruptedException {
    stopped.await();
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      server.close();
    } finally {
      store.close();
      stopped.countDown();
    }
  }

  private static boolean isBindFailure(Throwable e) {
    for (var t = e; t != null; t = t.getCause()) {
      if (t instanceof BindException) {
        return true;
      }
    }
    return false;
  }
}
