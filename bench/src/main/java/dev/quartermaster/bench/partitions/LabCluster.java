package dev.quartermaster.bench.partitions;

import dev.quartermaster.api.client.http.HttpApiClient;
import dev.quartermaster.api.client.http.TrustedCa;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The cluster of the many-machines guide, each member in its namespace: three etcd members, two
 * {@code qm server --tls} replicas on them, and agents with simulated GPUs, each with a node token
 * of its own and both servers' addresses. Started with the commands the guide gives.
 */
final class LabCluster implements AutoCloseable {
  static final int AGENTS = 3;
  static final int GPUS = 4;
  private static final int SERVER_PORT = 7480;
  private static final int PLUGIN_METRICS_PORT = 9108;

  private final Lab lab;
  private final Path dir;
  private final Path qm;
  private final Path etcd;
  private final Optional<NaiveVariant> naive;
  private final Map<String, LabProcess> members = new LinkedHashMap<>();
  private HttpApiClient client;
  private List<HttpApiClient> eachServer = List.of();

  private LabCluster(Lab lab, Path dir, Path qm, Path etcd, Optional<NaiveVariant> naive) {
    this.lab = lab;
    this.dir = dir;
    this.qm = qm;
    this.etcd = etcd;
    this.naive = naive;
  }

  static List<String> etcdMembers() {
    return List.of("e0", "e1", "e2");
  }

  static List<String> servers() {
    return List.of("s0", "s1");
  }

  /**
   * The hostpath CSI plugin of each agent's node ({@code csi-n1}…), over one shared state directory
   * (the lab's machines share a disk, as a network file system would): the first serves the
   * Controller too, and counts destructive calls that overlap.
   */
  static List<String> plugins() {
    return agents().stream().map(a -> "csi-" + a).toList();
  }

  static List<String> agents() {
    var out = new ArrayList<String>();
    for (int i = 1; i <= AGENTS; i++) {
      out.add("n" + i);
    }
    return out;
  }

  /**
   * Starts the cluster; with a {@code naive} variant, the members it swaps run its program ({@link
   * NaiveServer}, {@link NaiveAgent}) instead of {@code qm server}'s or {@code qm agent}'s.
   */
  static LabCluster start(Lab lab, Path dir, Path qm, Path etcd, Optional<NaiveVariant> naive)
      throws Exception {
    var cluster = new LabCluster(lab, dir, qm, etcd, naive);
    try {
      cluster.startAll();
      return cluster;
    } catch (Exception e) {
      cluster.close();
      throw e;
    }
  }

  private void startAll() throws Exception {
    Files.createDirectories(dir);
    // A copy of the jar the launcher runs: a rebuild during a long run (./qm rebuilds when the
    // sources change) must not swap the program under a member restarted by a fault.
    var jar = qm.resolveSibling("cli").resolve("target").resolve("qm.jar");
    if (!Files.exists(jar)) {
      throw new IOException("no " + jar + ": run ./qm version once to build it");
    }
    Files.copy(jar, program(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    // The naive programs run from the bench's class path, where the test jars' logging config
    // (everything off) would come first: they log as qm does, with its own.
    Files.copy(
        qm.resolveSibling("cli").resolve("src/main/resources/logback.xml"),
        dir.resolve("logback.xml"),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    int host = 11;
    for (var m : etcdMembers()) {
      lab.join(m, host++);
    }
    host = 21;
    for (var s : servers()) {
      lab.join(s, host++);
    }
    host = 31;
    for (var a : agents()) {
      lab.join(a, host++);
    }
    var initial =
        etcdMembers().stream()
            .map(m -> m + "=http://" + lab.address(m) + ":2380")
            .collect(Collectors.joining(","));
    for (var m : etcdMembers()) {
      var a = lab.address(m);
      add(
          m,
          List.of(
              etcd.toString(),
              "--name",
              m,
              "--data-dir",
              dir.resolve(m).toString(),
              "--listen-client-urls",
              "http://" + a + ":2379",
              "--advertise-client-urls",
              "http://" + a + ":2379",
              "--listen-peer-urls",
              "http://" + a + ":2380",
              "--initial-advertise-peer-urls",
              "http://" + a + ":2380",
              "--initial-cluster",
              initial,
              "--log-level",
              "warn"));
    }
    for (var m : etcdMembers()) {
      members.get(m).start();
    }
    var store =
        "etcd://"
            + etcdMembers().stream()
                .map(m -> lab.address(m) + ":2379")
                .collect(Collectors.joining(","));
    for (var s : servers()) {
      var command = new ArrayList<String>(program(NaiveVariant.Members.SERVERS, "server"));
      command.addAll(
          List.of(
              "--data",
              dir.resolve(s).toString(),
              "--listen",
              lab.address(s) + ":" + SERVER_PORT,
              "--tls",
              "--store",
              store));
      add(s, command);
      members.get(s).start();
      awaitHealthy(s, Duration.ofSeconds(120));
    }
    var tls = Optional.of(TrustedCa.sslContext(ca()));
    var admin = adminToken();
    client = HttpApiClient.of(serverUris(), admin, tls);
    eachServer = serverUris().stream().map(u -> new HttpApiClient(u, admin, tls)).toList();
    qmCommand(
        List.of(
            "apply", "-f", qm.resolveSibling("examples").resolve("deviceclass.yaml").toString()));
    var queues = dir.resolve("queues.yaml");
    Files.writeString(queues, Traffic.queuesManifest());
    qmCommand(List.of("apply", "-f", queues.toString()));
    for (var a : agents()) {
      startPlugin(a);
    }
    var volumes = dir.resolve("volumes.yaml");
    Files.writeString(volumes, Traffic.volumesManifest());
    qmCommand(List.of("apply", "-f", volumes.toString()));
    for (var a : agents()) {
      var token = dir.resolve(a + ".token");
      var made = qmCommand(List.of("token", "create", "--node", a)).strip();
      Files.writeString(token, made.substring(made.lastIndexOf('\n') + 1).strip() + "\n");
      add(
          a,
          with(
              program(NaiveVariant.Members.AGENTS, "agent"),
              "--server",
              serverList(),
              "--ca-file",
              ca().toString(),
              "--token-file",
              token.toString(),
              "--node",
              a,
              "--state",
              dir.resolve(a).toString(),
              "--simulated-gpus",
              Integer.toString(GPUS)));
      members.get(a).start();
    }
  }

  /**
   * {@code qm csi hostpath} on {@code agent}'s node, in its namespace, on the socket the agent
   * looks for ({@code <state>/plugins/hostpath.sock}); returns once the socket is there.
   */
  private void startPlugin(String agent) throws Exception {
    var plugins = dir.resolve(agent).resolve("plugins");
    Files.createDirectories(plugins);
    var socket = plugins.resolve("hostpath.sock");
    var command =
        with(
            qmLine("csi"),
            "hostpath",
            "--endpoint",
            "unix://" + socket,
            "--node-id",
            agent,
            "--state",
            dir.resolve("hostpath").toString(),
            // Each `ip netns exec` has a mount namespace of its own: a bind mount the plugin makes
            // would not be seen by the agent's tasks; a symlink is.
            "--staging",
            "symlink");
    if (agent.equals(agents().getFirst())) {
      command.addAll(
          List.of(
              "--detect-overlap",
              "--metrics-listen",
              lab.address(agent) + ":" + PLUGIN_METRICS_PORT));
    } else {
      command.add("--node-only");
    }
    var member = "csi-" + agent;
    add(member, agent, command);
    members.get(member).start();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!Files.exists(socket)) {
      if (!members.get(member).alive() || System.nanoTime() > deadline) {
        throw new IOException(member + " did not start; its log: " + members.get(member).log());
      }
      Thread.sleep(200);
    }
  }

  /**
   * Destructive controller calls the plugin saw overlap (I5 at the plugin), from its metrics; empty
   * when it does not answer now.
   */
  java.util.OptionalLong pluginOverlaps() {
    var uri =
        URI.create(
            "http://" + lab.address(agents().getFirst()) + ":" + PLUGIN_METRICS_PORT + "/metrics");
    try (var http =
        java.net.http.HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build()) {
      var body =
          http.send(
                  java.net.http.HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(3)).build(),
                  java.net.http.HttpResponse.BodyHandlers.ofString())
              .body();
      return body.lines()
          .filter(l -> l.startsWith("qm_csi_overlapping_calls_total "))
          .mapToLong(l -> (long) Double.parseDouble(l.substring(l.indexOf(' ') + 1).strip()))
          .findFirst();
    } catch (IOException | RuntimeException e) {
      return java.util.OptionalLong.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return java.util.OptionalLong.empty();
    }
  }

  /**
   * How a member of {@code members} is started: {@code qm <command>}, or the naive variant's
   * program when it swaps these members.
   */
  private List<String> program(NaiveVariant.Members members, String command) {
    var variant = naive.filter(v -> v.members == members);
    if (variant.isEmpty()) {
      return qmLine(command);
    }
    var main = members == NaiveVariant.Members.SERVERS ? NaiveServer.class : NaiveAgent.class;
    return List.of(
        java(),
        "--enable-native-access=ALL-UNNAMED",
        "-XX:+ExitOnOutOfMemoryError",
        "-Dlogback.configurationFile=" + dir.resolve("logback.xml"),
        "-cp",
        System.getProperty("java.class.path"),
        main.getName(),
        variant.get().flag);
  }

  private void add(String member, List<String> command) {
    add(member, member, command);
  }

  /** A member that runs in {@code namespace}'s network namespace (a node's plugin, its agent's). */
  private void add(String member, String namespace, List<String> command) {
    members.put(
        member,
        new LabProcess(
            member,
            lab.inside(namespace, command),
            dir.resolve(member + ".log"),
            Map.of("XDG_CONFIG_HOME", dir.resolve("config-" + member).toString())));
  }

  LabProcess member(String name) {
    var p = members.get(name);
    if (p == null) {
      throw new IllegalArgumentException("no member " + name);
    }
    return p;
  }

  Lab lab() {
    return lab;
  }

  HttpApiClient client() {
    return client;
  }

  /** The server whose {@code qm_controllers_leader} metric is 1 now, if one answers so. */
  Optional<String> leader() {
    for (var s : servers()) {
      var uri = URI.create("https://" + lab.address(s) + ":" + SERVER_PORT + "/metrics");
      try (var http =
          java.net.http.HttpClient.newBuilder()
              .sslContext(TrustedCa.sslContext(ca()))
              .connectTimeout(Duration.ofSeconds(2))
              .build()) {
        var body =
            http.send(
                    java.net.http.HttpRequest.newBuilder(uri)
                        .timeout(Duration.ofSeconds(3))
                        .build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString())
                .body();
        if (body.lines().anyMatch(l -> l.equals("qm_controllers_leader 1.0"))) {
          return Optional.of(s);
        }
      } catch (IOException e) {
        // this one does not answer: ask the other
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  /** A client of each server alone (no going on to another). */
  List<HttpApiClient> eachServer() {
    return eachServer;
  }

  /** Where an agent keeps its state: its tasks' output files are under it. */
  Path agentState(String agent) {
    return dir.resolve(agent);
  }

  Path ca() {
    return dir.resolve(servers().getFirst()).resolve("tls").resolve("ca.crt");
  }

  String adminToken() throws IOException {
    return Files.readString(dir.resolve(servers().getFirst()).resolve("admin.token")).strip();
  }

  /** The etcd members' client URLs, as the servers are given them. */
  List<String> etcdEndpoints() {
    return etcdMembers().stream().map(m -> "http://" + lab.address(m) + ":2379").toList();
  }

  List<URI> serverUris() {
    return servers().stream()
        .map(s -> URI.create("https://" + lab.address(s) + ":" + SERVER_PORT))
        .toList();
  }

  private String serverList() {
    return serverUris().stream().map(URI::toString).collect(Collectors.joining(","));
  }

  private Path program() {
    return dir.resolve("qm.jar");
  }

  /** {@code qm COMMAND} as the launcher runs it, on the run's copy of the jar. */
  private List<String> qmLine(String command) {
    return List.of(
        java(),
        "--enable-native-access=ALL-UNNAMED",
        "-XX:+ExitOnOutOfMemoryError",
        "-jar",
        program().toString(),
        command);
  }

  private static String java() {
    return ProcessHandle.current().info().command().orElse("java");
  }

  private static List<String> with(List<String> head, String... tail) {
    var out = new ArrayList<>(head);
    out.addAll(List.of(tail));
    return out;
  }

  /** A {@code qm} client command from the harness's namespace; its output, or an exception. */
  String qmCommand(List<String> args) throws IOException, InterruptedException {
    var line = new ArrayList<>(qmLine(args.getFirst()).subList(0, 5));
    line.addAll(
        List.of(
            "--server",
            serverList(),
            "--ca-file",
            ca().toString(),
            "--token-file",
            dir.resolve(servers().getFirst()).resolve("admin.token").toString()));
    line.addAll(args);
    var builder = new ProcessBuilder(line).redirectErrorStream(true);
    builder.environment().put("XDG_CONFIG_HOME", dir.resolve("config-harness").toString());
    builder.environment().remove("JAVA_TOOL_OPTIONS"); // the bench's own -D settings
    var process = builder.start();
    var output = new String(process.getInputStream().readAllBytes());
    if (process.waitFor() != 0) {
      throw new IOException("qm " + String.join(" ", args) + " failed: " + output.strip());
    }
    return output;
  }

  /** Waits until the server answers {@code /healthz} over HTTPS with the cluster's CA. */
  private void awaitHealthy(String server, Duration bound) throws Exception {
    long deadline = System.nanoTime() + bound.toNanos();
    var uri = URI.create("https://" + lab.address(server) + ":" + SERVER_PORT + "/healthz");
    while (true) {
      if (Files.exists(dir.resolve(server).resolve("tls").resolve("ca.crt"))) {
        try (var http =
            java.net.http.HttpClient.newBuilder()
                .sslContext(
                    TrustedCa.sslContext(dir.resolve(server).resolve("tls").resolve("ca.crt")))
                .connectTimeout(Duration.ofSeconds(2))
                .build()) {
          var answer =
              http.send(
                  java.net.http.HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2)).build(),
                  java.net.http.HttpResponse.BodyHandlers.discarding());
          if (answer.statusCode() == 200) {
            return;
          }
        } catch (IOException e) {
          // not listening yet
        }
      }
      if (!member(server).alive()) {
        throw new IOException(server + " ended at start; its log: " + member(server).log());
      }
      if (System.nanoTime() > deadline) {
        throw new IOException(
            server + " not healthy within " + bound + "; its log: " + member(server).log());
      }
      Thread.sleep(500);
    }
  }

  @Override
  public void close() {
    if (client != null) {
      client.close();
    }
    eachServer.forEach(HttpApiClient::close);
    // Agents first (their tasks are stopped by them), then servers, then etcd.
    var order = new ArrayList<String>();
    order.addAll(agents());
    order.addAll(plugins());
    order.addAll(servers());
    order.addAll(etcdMembers());
    for (var m : order) {
      var p = members.get(m);
      if (p != null) {
        try {
          p.stop();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }
}
