package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.NodeAgentConfig;
import dev.quartermaster.agent.logs.EndpointCertificate;
import dev.quartermaster.agent.logs.TaskLogEndpoint;
import dev.quartermaster.agent.logs.TaskLogStore;
import dev.quartermaster.agent.tasks.TaskLogs;
import dev.quartermaster.api.logs.TaskLogKey;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.LogEndpoint;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.cli.config.ApiConnector;
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
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code qm logs} against a real server that reads the output from a real agent log endpoint over
 * HTTPS, as on a cluster of several machines: the current attempt, {@code --previous}, {@code
 * --tail}, {@code --since}, {@code --limit-bytes}, and what is said when the endpoint cannot be
 * trusted or reached. The task files are laid out as an agent writes them.
 */
class LogsCommandTest {
  @TempDir Path dir;

  private SqliteStore store;
  private ApiServer server;
  private ObjectRegistry registry;
  private CliEnvironment env;
  private Path state;
  private TaskLogEndpoint endpoint;
  private NodeTokens tokens;
  private final Set<String> running = ConcurrentHashMap.newKeySet();

  @BeforeEach
  void startServer() throws IOException {
    var data = dir.resolve("data");
    store = SqliteStore.open(dir.resolve("store.db"));
    registry = new ObjectRegistry(store, new SystemEnv());
    tokens = new NodeTokens(store);
    server =
        ApiServer.start(
            ApiServerConfig.of(registry, data).withListen("127.0.0.1", 0).withNodeTokens(tokens));
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
    state = dir.resolve("node-1");
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
    var key = TaskLogKey.ofToken(Files.readString(server.adminTokenFile()).strip());
    endpoint = serve(key);
    publish(endpoint.published());
  }

  private TaskLogEndpoint serve(String key) throws IOException {
    return serve(key, LogEndpoint.ADMIN_TOKEN);
  }

  private TaskLogEndpoint serve(String key, String credential) throws IOException {
    var logs =
        new TaskLogStore(
            t -> NodeAgentConfig.taskLog(state, t),
            TaskLogStore.DEFAULT_MAX_BYTES,
            new SystemEnv());
    return TaskLogEndpoint.start(
        new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
        "127.0.0.1",
        EndpointCertificate.loadOrCreate(state.resolve("tls"), "node-1"),
        key,
        credential,
        logs,
        () -> List.copyOf(running),
        running::contains);
  }

  private void publish(LogEndpoint logs) {
    var node = registry.get(Kinds.NODE, "node-1");
    if (node.isEmpty()) {
      registry.create(
          new Node(
              ObjectMeta.named("node-1"),
              NodeSpec.EMPTY,
              NodeStatus.EMPTY.withLogs(Optional.of(logs))));
    } else {
      registry.updateStatus(node.get().withStatus(node.get().status().withLogs(Optional.of(logs))));
    }
  }

  @AfterEach
  void stopServer() {
    endpoint.close();
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

  private Path log() throws IOException {
    var log = NodeAgentConfig.taskLog(state, "crashy");
    Files.createDirectories(log.getParent());
    return log;
  }

  @Test
  void previousPrintsTheAttemptBeforeAndSaysClearlyWhenThereIsNone() throws IOException {
    Files.writeString(log(), "attempt two\n");

    var none = run("logs", "--previous", "crashy");
    assertThat(none[0]).isNotEqualTo("0");
    assertThat(none[2]).contains("node node-1: no previous attempt of task crashy on this node");

    Files.writeString(
        NodeAgentConfig.previousTaskLog(state, "crashy"), "attempt one: CUDA error\n");
    assertThat(run("logs", "--previous", "crashy")[1]).isEqualTo("attempt one: CUDA error\n");
    assertThat(run("logs", "crashy")[1]).isEqualTo("attempt two\n");
    assertThat(run("logs", "-p", "-f", "crashy")[2]).contains("cannot be used together");
  }

  @Test
  void tailAndLimitCutTheOutputAndARotatedPartComesFirst() throws IOException {
    Files.writeString(TaskLogs.rotated(log()), "one\ntwo\n");
    Files.writeString(log(), "three\nfour\nfive");
    assertThat(run("logs", "crashy")[1]).isEqualTo("one\ntwo\nthree\nfour\nfive");
    assertThat(run("logs", "--tail", "2", "crashy")[1]).isEqualTo("four\nfive");
    assertThat(run("logs", "--tail", "4", "crashy")[1]).isEqualTo("two\nthree\nfour\nfive");
    assertThat(run("logs", "--tail", "0", "crashy")[1]).isEmpty();
    assertThat(run("logs", "--limit-bytes", "6", "crashy")[1]).isEqualTo("one\ntw");
    assertThat(run("logs", "--since", "1h", "crashy")[1]).isEqualTo("one\ntwo\nthree\nfour\nfive");
    assertThat(run("logs", "--since", "5x", "crashy")[2]).contains("must be a duration");
    assertThat(run("logs", "--tail", "-3", "crashy")[2])
        .contains("--tail: must be -1 (all) or >= 0");
  }

  @Test
  void followEndsWhenTheTasksProcessEnds() throws Exception {
    Files.writeString(log(), "started\n");
    running.add("crashy");
    var result = new java.util.concurrent.CompletableFuture<String[]>();
    var follower = new Thread(() -> result.complete(run("logs", "-f", "crashy")), "follower");
    follower.start();
    Files.writeString(log(), "more\n", StandardOpenOption.APPEND);
    running.remove("crashy");
    var done = result.get(30, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(done[0]).isEqualTo("0");
    assertThat(done[1]).isEqualTo("started\nmore\n");
  }

  @Test
  void aNodeWithoutAnEndpointAndATaskWithoutANodeAreSaidAsSuch() {
    registry.create(
        new Task(
            ObjectMeta.named("waiting"),
            new TaskSpec(
                Optional.empty(),
                List.of("x"),
                Map.of(),
                List.of(),
                List.of(),
                "exec",
                Optional.empty()),
            TaskStatus.EMPTY));
    assertThat(run("logs", "waiting")[2]).contains("task/waiting has no node yet");
    assertThat(run("logs", "nosuch")[2]).contains("task/nosuch not found");
    var node = registry.get(Kinds.NODE, "node-1").orElseThrow();
    registry.updateStatus(node.withStatus(node.status().withLogs(Optional.empty())));
    assertThat(run("logs", "crashy")[2])
        .contains("node node-1 publishes no log endpoint (status.logs)");
  }

  /**
   * The naive proxy would send the key to whatever answers at the published address. Ours accepts
   * only the certificate the node published: an endpoint with another certificate (an impostor on
   * the agent's port after it moved, say) gets no key and no request.
   */
  @Test
  void anEndpointWithAnotherCertificateIsRefusedBeforeTheKeyIsSent() throws IOException {
    Files.writeString(log(), "secret output\n");
    var published = endpoint.published();
    var other = "0".repeat(64);
    publish(new LogEndpoint(published.address(), other, published.credential()));
    var refused = run("logs", "crashy");
    assertThat(refused[1]).isEmpty();
    assertThat(refused[2])
        .contains("presented a certificate other than the one the node published")
        .contains("its key was not sent");
  }

  @Test
  void anEndpointThatDoesNotHoldTheKeyIsSaidAsSuchAndAWrongKeyIsRefusedByTheAgent()
      throws IOException {
    Files.writeString(log(), "secret output\n");
    endpoint.close();
    endpoint = serve(TaskLogKey.ofToken("another cluster's token"));
    publish(endpoint.published());
    var refused = run("logs", "crashy");
    assertThat(refused[1]).isEmpty();
    assertThat(refused[2]).contains("the agent of node node-1 refused this server's key");
  }

  @Test
  void anAgentThatIsGoneIsSaidWithItsAddress() throws IOException {
    Files.writeString(log(), "x\n");
    var published = endpoint.published();
    endpoint.close();
    endpoint = serve("k");
    var refused = run("logs", "crashy");
    // The published address no longer answers (or answers with another certificate).
    assertThat(refused[2]).contains("node-1").contains(published.address().split(":")[0]);
  }

  /**
   * An agent on another machine proves its node token: the server derives the same key from the
   * token's digest in the store. Revoked, the token opens nothing; and a node token is an agent's
   * credential, never a reader of task output (another node's least of all).
   */
  @Test
  void aNodeTokensKeyOpensItsLogsUntilRevokedAndANodeTokenReadsNoOutput() throws IOException {
    Files.writeString(log(), "from a node with a token\n");
    var issued = tokens.create("node-1", java.time.Instant.now());
    endpoint.close();
    endpoint = serve(TaskLogKey.ofToken(issued.token()), LogEndpoint.nodeToken(issued.info().id()));
    publish(endpoint.published());
    assertThat(run("logs", "crashy")[1]).isEqualTo("from a node with a token\n");

    var nodeTokenFile = dir.resolve("node.token");
    Files.writeString(nodeTokenFile, issued.token());
    var asNode = run("logs", "crashy", "--token-file", nodeTokenFile.toString());
    assertThat(asNode[1]).isEmpty();
    assertThat(asNode[2]).contains("node:node-1 may not read task output");

    tokens.revoke(issued.info().id());
    var revoked = run("logs", "crashy");
    assertThat(revoked[1]).isEmpty();
    assertThat(revoked[2])
        .contains("node node-1 serves its logs with token " + issued.info().id())
        .contains("which is revoked");
  }
}
