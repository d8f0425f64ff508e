package dev.quartermaster.server;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.server.auth.AccessRule;
import dev.quartermaster.server.auth.Authenticator;
import dev.quartermaster.server.auth.NodeScopedAccess;
import dev.quartermaster.server.auth.NodeTokens;
import dev.quartermaster.server.http.ConnectionSettings;
import dev.quartermaster.server.tls.ServerCertificates;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * What {@link ApiServer#start} needs. Start from {@link #of} and change what differs.
 *
 * @param host the address to listen on; {@code 127.0.0.1} by default, so nothing is exposed by
 *     accident
 * @param port the port; 0 picks a free one (tests)
 * @param dataDir where {@code admin.token} lives
 * @param maxBodyBytes the largest request body accepted; larger ones get 413 unread
 * @param api what the server serves; the server adds HTTP, auth and validation, nothing else
 * @param env the clock the server measures request latency and schedules bookmarks with
 * @param watch how watch streams are buffered and timed
 * @param connections timeouts and caps on connections and requests
 * @param authenticator who a token stands for; empty means the admin token only
 * @param accessRule what each principal may do
 * @param storeRevision the store's current revision, exported as a gauge when present
 * @param meterRegistry where metrics go; empty means a registry of the server's own
 * @param nodeTokens the node credentials in the store: accepted as tokens, and managed at {@code
 *     /api/v1/tokens} by admins; empty means none (the admin token only)
 * @param tls the certificate to serve HTTPS with; empty means plain HTTP
 */
public record ApiServerConfig(
    String host,
    int port,
    Path dataDir,
    long maxBodyBytes,
    ApiClient api,
    Env env,
    WatchSettings watch,
    ConnectionSettings connections,
    Optional<Authenticator> authenticator,
    AccessRule accessRule,
    Optional<LongSupplier> storeRevision,
    Optional<PrometheusMeterRegistry> meterRegistry,
    Optional<NodeTokens> nodeTokens,
    Optional<ServerCertificates.Material> tls) {

  public static final String DEFAULT_HOST = "127.0.0.1";
  public static final int DEFAULT_PORT = 7480;

  /**
   * 1 MiB: below etcd's 1.5 MiB per request, so that an object the API accepts always fits one etcd
   * write.
   */
  public static final long DEFAULT_MAX_BODY_BYTES = 1L << 20;

  /** Bodies are read into one array, so the limit must stay well inside an array's size. */
  public static final long MAX_BODY_LIMIT = 1L << 30;

  public ApiServerConfig {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(dataDir, "dataDir");
    Objects.requireNonNull(api, "api");
    Objects.requireNonNull(env, "env");
    Objects.requireNonNull(watch, "watch");
    Objects.requireNonNull(connections, "connections");
    Objects.requireNonNull(authenticator, "authenticator");
    Objects.requireNonNull(accessRule, "accessRule");
    Objects.requireNonNull(storeRevision, "storeRevision");
    Objects.requireNonNull(meterRegistry, "meterRegistry");
    Objects.requireNonNull(nodeTokens, "nodeTokens");
    Objects.requireNonNull(tls, "tls");
    if (port < 0 || port > 65_535) {
      throw new IllegalArgumentException("port must be 0..65535, got " + port);
    }
    if (maxBodyBytes < 1 || maxBodyBytes > MAX_BODY_LIMIT) {
      throw new IllegalArgumentException(
          "maxBodyBytes must be 1.." + MAX_BODY_LIMIT + ", got " + maxBodyBytes);
    }
  }

  /**
   * Defaults: localhost:7080, 1 MiB bodies, the system clock, admin token only, node-scoped access.
   */
  public static ApiServerConfig of(ApiClient api, Path dataDir) {
    return new ApiServerConfig(
        DEFAULT_HOST,
        DEFAULT_PORT,
        dataDir,
        DEFAULT_MAX_BODY_BYTES,
        api,
        new SystemEnv(),
        WatchSettings.DEFAULTS,
        ConnectionSettings.DEFAULTS,
        Optional.empty(),
        new NodeScopedAccess(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty());
  }

  /**
   * This config with what {@code change} sets on a {@link Builder} that starts from its fields; the
   * record's checks run again on the result. The one way to derive a config: the {@code with…}
   * methods below are its common uses.
   */
  public ApiServerConfig with(Consumer<Builder> change) {
    var builder = new Builder(this);
    change.accept(builder);
    return builder.build();
  }

  public ApiServerConfig withListen(String h, int p) {
    return with(
        b -> {
          b.host = h;
          b.port = p;
        });
  }

  public ApiServerConfig withMaxBodyBytes(long limit) {
    return with(b -> b.maxBodyBytes = limit);
  }

  public ApiServerConfig withEnv(Env e) {
    return with(b -> b.env = e);
  }

  public ApiServerConfig withWatch(WatchSettings w) {
    return with(b -> b.watch = w);
  }

  public ApiServerConfig withAuthenticator(Authenticator a) {
    return with(b -> b.authenticator = Optional.of(a));
  }

  public ApiServerConfig withAccessRule(AccessRule r) {
    return with(b -> b.accessRule = r);
  }

  public ApiServerConfig withStoreRevision(LongSupplier s) {
    return with(b -> b.storeRevision = Optional.of(s));
  }

  public ApiServerConfig withMeterRegistry(PrometheusMeterRegistry r) {
    return with(b -> b.meterRegistry = Optional.of(r));
  }

  public ApiServerConfig withNodeTokens(NodeTokens t) {
    return with(b -> b.nodeTokens = Optional.of(t));
  }

  public ApiServerConfig withTls(ServerCertificates.Material m) {
    return with(b -> b.tls = Optional.of(m));
  }

  public ApiServerConfig withConnections(ConnectionSettings c) {
    return with(b -> b.connections = c);
  }

  /** The fields of a {@link ApiServerConfig}, each settable, for {@link ApiServerConfig#with}. */
  public static final class Builder {
    public String host;
    public int port;
    public Path dataDir;
    public long maxBodyBytes;
    public ApiClient api;
    public Env env;
    public WatchSettings watch;
    public ConnectionSettings connections;
    public Optional<Authenticator> authenticator;
    public AccessRule accessRule;
    public Optional<LongSupplier> storeRevision;
    public Optional<PrometheusMeterRegistry> meterRegistry;
    public Optional<NodeTokens> nodeTokens;
    public Optional<ServerCertificates.Material> tls;

    private Builder(ApiServerConfig c) {
      host = c.host;
      port = c.port;
      dataDir = c.dataDir;
      maxBodyBytes = c.maxBodyBytes;
      api = c.api;
      env = c.env;
      watch = c.watch;
      connections = c.connections;
      authenticator = c.authenticator;
      accessRule = c.accessRule;
      storeRevision = c.storeRevision;
      meterRegistry = c.meterRegistry;
      nodeTokens = c.nodeTokens;
      tls = c.tls;
    }

    private ApiServerConfig build() {
      return new ApiServerConfig(
          host,
          port,
          dataDir,
          maxBodyBytes,
          api,
          env,
          watch,
          connections,
          authenticator,
          accessRule,
          storeRevision,
          meterRegistry,
          nodeTokens,
          tls);
    }
  }
}
