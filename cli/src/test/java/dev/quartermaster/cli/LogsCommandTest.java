package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.cli.commands.UpLayout;
import dev.quartermaster.cli.config.ApiConnector;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.server.ApiServer;
import dev.quartermaster.server.ApiServerConfig;
import dev.quartermaster.store.registry.ObjectRegistry;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code qm logs} against a real server, with the task output laid out as {@code qm up}'s agents
 * write it under the data directory: the current attempt, {@code --previous} for the one before,
 * and a clear error when there is no previous attempt.
 */
class LogsCommandTest {
  @TempDir Path dir;

  private SqliteStore store;
  private ApiServer server;
  private CliEnvironment env;
  private UpLayout layout;

  @BeforeEach
  void startServer() throws IOException {
    var data = dir.resolve("data");
    store = SqliteStore.open(dir.resolve("store.db"));
    var registry = new ObjectRegistry(store, new SystemEnv());
    server = ApiServer.start(ApiServerConfig.of(registry, data).withListen("127.0.0.1", 0));
    env =
        new CliEnvironment(
            Map.of(
                "QM_SERVER",
                server.baseUri().toString(),
                "QM_TOKEN_FILE",
                server.adminTokenFile().toString(),
                "XDG_CONFIG_HOME",
                dir.resolve("config").toString()),
            ExamplesTest.REPO,
            dir.resolve("home"),
            new ByteArrayInputStream(new byte[0]),
            Clock.systemUTC(),
            ApiConnector.http());
    layout = UpLayout.of(server.adminTokenFile().toAbsolutePath().getParent());
    var spec =
        new TaskSpec(
            Optional.of("node-1"),
            List.of("train"),
            Map.of(),
            List.of(),
            List.of(),
            "exec",
            Optional.empty());
    registry.create(new Task(ObjectMeta.named("crashy"), spec, TaskStatus.EMPTY));
  }

  @AfterEach
  void stopServer() {
    server.close();
    store.close();
  }

  private String[] run(String... args) {
    var out = new StringWriter();
    var err = new StringWriter();
    var cl = Main.commandLine(env);
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int exit = cl.execute(args);
    return new String[] {Integer.toString(exit), out.toString(), err.toString()};
  }

  @Test
  void previousPrintsTheAttemptBeforeAndSaysClearlyWhenThereIsNone() throws IOException {
    Files.createDirectories(layout.taskLog("node-1", "crashy").getParent());
    Files.writeString(layout.taskLog("node-1", "crashy"), "attempt two\n");

    var none = run("logs", "--previous", "crashy");
    assertThat(none[0]).isNotEqualTo("0");
    assertThat(none[2])
        .contains("no previous attempt of task/crashy on node-1")
        .contains(layout.previousTaskLog("node-1", "crashy").toString());

    Files.writeString(layout.previousTaskLog("node-1", "crashy"), "attempt one: CUDA error\n");
    assertThat(run("logs", "--previous", "crashy")[1]).isEqualTo("attempt one: CUDA error\n");
    assertThat(run("logs", "crashy")[1]).isEqualTo("attempt two\n");
    assertThat(run("logs", "-p", "-f", "crashy")[2]).contains("cannot be used together");
  }
}
