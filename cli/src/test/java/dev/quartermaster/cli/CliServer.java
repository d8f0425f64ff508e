package dev.quartermaster.cli;

import dev.quartermaster.cli.config.ApiConnector;
import dev.quartermaster.cli.fast.FastGet;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.server.ApiServer;
import dev.quartermaster.server.ApiServerConfig;
import dev.quartermaster.server.auth.NodeTokens;
import dev.quartermaster.store.registry.ObjectRegistry;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A real server for CLI tests (SQLite store, object registry, HTTP API on a free port) and the CLI
 * pointed at it over HTTP with the admin token, run in-process as a user would type it.
 */
final class CliServer implements AutoCloseable {
  final SqliteStore store;
  final ObjectRegistry registry;
  final ApiServer server;
  final CliEnvironment env;

  record Run(int exit, String out, String err) {
    List<String> outLines() {
      return out.lines().toList();
    }
  }

  private CliServer(
      SqliteStore store, ObjectRegistry registry, ApiServer server, CliEnvironment env) {
    this.store = store;
    this.registry = registry;
    this.server = server;
    this.env = env;
  }

  static CliServer start(Path dir) throws IOException {
    var store = SqliteStore.open(dir.resolve("store.db"));
    var registry = new ObjectRegistry(store, new SystemEnv());
    var server =
        ApiServer.start(
            ApiServerConfig.of(registry, dir.resolve("data"))
                .withListen("127.0.0.1", 0)
                .withNodeTokens(new NodeTokens(store)));
    var variables =
        Map.of(
            "QM_SERVER", server.baseUri().toString(),
            "QM_TOKEN_FILE", server.adminTokenFile().toString(),
            "XDG_CONFIG_HOME", dir.resolve("config").toString());
    var env =
        new CliEnvironment(
            variables,
            ExamplesTest.REPO,
            dir.resolve("home"),
            new ByteArrayInputStream(new byte[0]),
            Clock.systemUTC(),
            ApiConnector.http());
    return new CliServer(store, registry, server, env);
  }

  Run run(String... args) {
    return runWith(env, args);
  }

  Run runWithStdin(String stdin, String... args) {
    return runWith(TestEnvironments.withStdin(env, stdin), args);
  }

  static Run runWith(CliEnvironment env, String... args) {
    var out = new StringWriter();
    var err = new StringWriter();
    var cl = Main.commandLine(env);
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int exit = Main.execute(cl, args);
    return new Run(exit, out.toString(), err.toString());
  }

  /**
   * As {@link #run}, through {@link FastGet} as {@link Main#main} runs it; empty when FastGet
   * leaves the line to the command tree.
   */
  Optional<Run> runFast(String... args) {
    var fast = FastGet.parse(Invocation.read(args));
    if (fast.isEmpty()) {
      return Optional.empty();
    }
    var out = new StringWriter();
    var err = new StringWriter();
    int exit = fast.get().run(env, new PrintWriter(out, true), new PrintWriter(err, true));
    return Optional.of(new Run(exit, out.toString(), err.toString()));
  }

  @Override
  public void close() {
    server.close();
    store.close();
  }
}
