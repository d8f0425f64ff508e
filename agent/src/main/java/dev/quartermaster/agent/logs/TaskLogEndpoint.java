package dev.quartermaster.agent.logs;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.quartermaster.agent.NodeAgent;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.logs.LogOptions;
import dev.quartermaster.api.logs.TaskLogKey;
import dev.quartermaster.api.node.LogEndpoint;
import dev.quartermaster.api.validation.Names;
import dev.quartermaster.core.env.OutsideEnv;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the API server reads this node's task output: {@code GET /v1/tasks/<task>/log} with {@link
 * LogOptions}, over HTTPS with the node's own certificate ({@link EndpointCertificate}), answering
 * only a caller that presents the node's {@link TaskLogKey}. The API server is its one client: it
 * authenticates and authorizes the user, finds the task's node, pins the certificate the node
 * published and proxies the bytes, as the Kubernetes API server does with the kubelet.
 */
@OutsideEnv("an HTTPS server's request threads, and a follower's wait for more output")
public final class TaskLogEndpoint implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TaskLogEndpoint.class);
  static final String PREFIX = "/v1/tasks/";
  static final String SUFFIX = "/log";

  /** How often a follower looks for more output. */
  static final Duration FOLLOW_POLL = Duration.ofMillis(200);

  /** Readers at once: a follower holds one until its task ends or its client goes. */
  static final int MAX_READERS = 64;

  /** How often running tasks' output is measured (for sinceSeconds) and rotated. */
  static final Duration TICK = Duration.ofSeconds(1);

  private final HttpsServer server;
  private final ExecutorService threads;
  private final LogEndpoint published;
  private final Semaphore readers = new Semaphore(MAX_READERS);
  private volatile boolean closed;

  private TaskLogEndpoint(HttpsServer server, ExecutorService threads, LogEndpoint published) {
    this.server = server;
    this.threads = threads;
    this.published = published;
  }

  /**
   * Binds {@code listen} and serves {@code logs}; a task is followed while {@code running} says its
   * process runs.
   *
   * @param advertise the host the API server reaches this one at (the listen address unless it is
   *     the wildcard)
   * @param key what the caller must present ({@link TaskLogKey})
   * @param credential which token {@code key} derives from, as published
   */
  public static TaskLogEndpoint start(
      InetSocketAddress listen,
      String advertise,
      EndpointCertificate certificate,
      String key,
      String credential,
      TaskLogStore logs,
      Supplier<List<String>> runningTasks,
      Predicate<String> running)
      throws IOException {
    var server = HttpsServer.create(listen, 64);
    server.setHttpsConfigurator(new HttpsConfigurator(certificate.serverContext()));
    var threads = Executors.newVirtualThreadPerTaskExecutor();
    server.setExecutor(threads);
    var port = server.getAddress().getPort();
    var host = advertise.contains(":") ? "[" + advertise + "]" : advertise;
    var published = new LogEndpoint(host + ":" + port, certificate.sha256(), credential);
    var endpoint = new TaskLogEndpoint(server, threads, published);
    server.createContext(
        "/",
        exchange -> {
          try (exchange) {
            endpoint.serve(exchange, key, logs, running);
          } catch (IOException | RuntimeException e) {
            LOG.debug("task log request ended: {}", e.toString());
          }
        });
    server.start();
    threads.execute(endpoint.ticking(logs, runningTasks));
    return endpoint;
  }

  /**
   * Serves {@code agent}'s task output at {@code listen} and publishes where in its Node's status:
   * the certificate is kept in {@code <state>/tls}, each task's current file bounded by {@code
   * maxBytes}.
   */
  public static TaskLogEndpoint forAgent(
      NodeAgent agent,
      InetSocketAddress listen,
      String advertise,
      String key,
      String credential,
      long maxBytes)
      throws IOException {
    var config = agent.config();
    var certificate =
        EndpointCertificate.loadOrCreate(config.stateDir().resolve("tls"), config.nodeName());
    var logs = new TaskLogStore(config::taskLog, maxBytes, config.env());
    var endpoint =
        start(
            listen,
            advertise,
            certificate,
            key,
            credential,
            logs,
            agent::runningTasks,
            agent::runsTask);
    try {
      agent.publishLogs(endpoint.published());
    } catch (RuntimeException e) {
      endpoint.close();
      throw e;
    }
    return endpoint;
  }

  private Runnable ticking(TaskLogStore logs, Supplier<List<String>> runningTasks) {
    return () -> {
      while (!closed) {
        try {
          var now = runningTasks.get();
          logs.tick(now);
          logs.retain(now);
          Thread.sleep(TICK);
        } catch (InterruptedException e) {
          return;
        } catch (RuntimeException e) {
          LOG.warn("looking after task output failed; trying again", e);
        }
      }
    };
  }

  /** The host to advertise for {@code listen}: itself, or for the wildcard this host's name. */
  public static String advertised(InetSocketAddress listen, Optional<String> given)
      throws IOException {
    if (given.isPresent()) {
      return given.get();
    }
    var address = listen.getAddress();
    if (address != null && !address.isAnyLocalAddress()) {
      return address.getHostAddress();
    }
    return InetAddress.getLocalHost().getHostAddress();
  }

  /** What the Node's status publishes. */
  public LogEndpoint published() {
    return published;
  }

  private void serve(
      HttpExchange exchange, String key, TaskLogStore logs, Predicate<String> running)
      throws IOException {
    var header = exchange.getRequestHeaders().getFirst("Authorization");
    var presented =
        header != null && header.startsWith("Bearer ") ? header.substring(7).strip() : "";
    if (!TaskLogKey.matches(key, presented)) {
      text(exchange, 401, "this endpoint answers the cluster's API servers only\n");
      return;
    }
    if (!exchange.getRequestMethod().equals("GET")) {
      exchange.getResponseHeaders().set("Allow", "GET");
      text(exchange, 405, "only GET\n");
      return;
    }
    var path = exchange.getRequestURI().getRawPath();
    if (!path.startsWith(PREFIX) || !path.endsWith(SUFFIX)) {
      text(
          exchange,
          404,
          "no such path " + path + "; task output is at " + PREFIX + "<task>" + SUFFIX + "\n");
      return;
    }
    var task = path.substring(PREFIX.length(), path.length() - SUFFIX.length());
    if (!Names.isDnsLabel(task)) {
      text(exchange, 400, "task name: " + Names.DNS_LABEL_RULE + "\n");
      return;
    }
    LogOptions options;
    try {
      var query = query(exchange.getRequestURI().getRawQuery());
      options = LogOptions.parse(name -> Optional.ofNullable(query.get(name)));
    } catch (ApiException e) {
      text(exchange, 400, e.getMessage() + "\n");
      return;
    }
    if (!readers.tryAcquire()) {
      text(
          exchange, 429, MAX_READERS + " readers of task output at once on this node; try again\n");
      return;
    }
    try {
      if (!logs.has(task, options.previous())) {
        text(
            exchange,
            404,
            options.previous()
                ? "no previous attempt of task " + task + " on this node\n"
                : "no output of task " + task + " on this node (it has not started here)\n");
        return;
      }
      exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
      exchange.sendResponseHeaders(200, 0);
      var out = exchange.getResponseBody();
      logs.stream(task, options, () -> running.test(task), out, () -> Thread.sleep(FOLLOW_POLL));
      out.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      readers.release();
    }
  }

  private static Map<String, String> query(String raw) {
    var out = new HashMap<String, String>();
    if (raw == null || raw.isEmpty()) {
      return out;
    }
    for (var part : raw.split("&")) {
      int eq = part.indexOf('=');
      var name = URLDecoder.decode(eq < 0 ? part : part.substring(0, eq), StandardCharsets.UTF_8);
      var value = eq < 0 ? "" : URLDecoder.decode(part.substring(eq + 1), StandardCharsets.UTF_8);
      if (!LogOptions.PARAMS.contains(name)) {
        throw ApiException.badRequest(
            name
                + ": unknown parameter; the known are "
                + new java.util.TreeSet<>(LogOptions.PARAMS),
            java.util.List.of());
      }
      out.put(name, value);
    }
    return out;
  }

  static void text(HttpExchange exchange, int code, String message) throws IOException {
    var bytes = message.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    exchange.sendResponseHeaders(code, bytes.length);
    exchange.getResponseBody().write(bytes);
  }

  @Override
  public void close() {
    closed = true;
    server.stop(0);
    threads.shutdownNow();
  }
}
