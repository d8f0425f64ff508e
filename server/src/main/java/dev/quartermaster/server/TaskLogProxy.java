package dev.quartermaster.server;

import com.sun.net.httpserver.HttpExchange;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.logs.LogOptions;
import dev.quartermaster.api.logs.TaskLogKey;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.LogEndpoint;
import dev.quartermaster.core.env.OutsideEnv;
import dev.quartermaster.server.auth.NodeTokens;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;

/**
 * {@code GET /api/v1/tasks/<name>/log}: the task's output, read from the agent of the node it runs
 * on, as the Kubernetes API server reads a pod's from its kubelet. The agent published where
 * ({@link LogEndpoint} in its Node's status, which only its own credential writes); this server
 * connects there over TLS accepting exactly the certificate published, presents the key derived
 * from the agent's token, and copies the bytes as they come. Every way this can fail is said with
 * the node and what to do.
 */
@OutsideEnv("a connection to an agent on another machine")
final class TaskLogProxy {
  private static final int CONNECT_TIMEOUT_MS = 5_000;
  private static final int READ_TIMEOUT_MS = 30_000;

  private final ApiClient api;
  private final Optional<NodeTokens> nodeTokens;
  private final String adminToken;

  TaskLogProxy(ApiClient api, Optional<NodeTokens> nodeTokens, String adminToken) {
    this.api = api;
    this.nodeTokens = nodeTokens;
    this.adminToken = adminToken;
  }

  int serve(HttpExchange exchange, String task, LogOptions options) throws IOException {
    var found =
        api.get(Kinds.TASK, task)
            .orElseThrow(() -> ErrorResponses.notFound("task/" + task + " not found"));
    var node =
        found
            .spec()
            .node()
            .or(() -> found.status().node())
            .orElseThrow(
                () ->
                    ApiException.badRequest(
                        "task/"
                            + task
                            + " has no node yet (phase "
                            + found.status().phase()
                            + "): no output so far",
                        List.of(new Violation("spec.node", "is not set yet"))));
    var endpoint =
        api.get(Kinds.NODE, node)
            .flatMap(n -> n.status().logs())
            .orElseThrow(
                () ->
                    unavailable(
                        "node "
                            + node
                            + " publishes no log endpoint (status.logs): its agent is not running,"
                            + " has not started yet, or is older than this server"));
    var key = keyOf(node, endpoint);
    var connection = open(node, endpoint, task, options, key);
    try {
      int code = connection.getResponseCode();
      if (code != 200) {
        var said = read(connection.getErrorStream());
        throw switch (code) {
          case 404 -> ErrorResponses.notFound("node " + node + ": " + said);
          case 400 -> ApiException.badRequest(said, List.of());
          case 401 ->
              unavailable(
                  "the agent of node "
                      + node
                      + " refused this server's key: the token it published ("
                      + endpoint.credential()
                      + ") is not the one it holds; it publishes again when it restarts");
          default ->
              unavailable(
                  "the agent of node "
                      + node
                      + " at "
                      + endpoint.address()
                      + " said "
                      + code
                      + ": "
                      + said);
        };
      }
      exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
      exchange.sendResponseHeaders(200, 0); // chunked: as much as the agent sends, as it comes
      var out = exchange.getResponseBody();
      try (var in = connection.getInputStream()) {
        var buffer = new byte[16 * 1024];
        int n;
        while ((n = in.read(buffer)) >= 0) {
          out.write(buffer, 0, n);
          if (in.available() == 0) {
            out.flush(); // a follower sees each line as the task writes it
          }
        }
      }
      out.close();
      return 200;
    } catch (SSLHandshakeException e) {
      throw unavailable(
          "the agent of node "
              + node
              + " at "
              + endpoint.address()
              + " presented a certificate other than the one the node published (SHA-256 "
              + endpoint.certificateSha256()
              + "); its key was not sent");
    } catch (java.net.ConnectException | java.net.SocketTimeoutException e) {
      throw unavailable(
          "cannot reach the agent of node "
              + node
              + " at "
              + endpoint.address()
              + ": "
              + e.getMessage()
              + " (is it running, and can this server reach that address?)");
    } finally {
      connection.disconnect();
    }
  }

  private String keyOf(String node, LogEndpoint endpoint) {
    if (endpoint.credential().equals(LogEndpoint.ADMIN_TOKEN)) {
      return TaskLogKey.ofToken(adminToken);
    }
    var id = endpoint.credential().substring(LogEndpoint.NODE_TOKEN.length());
    return nodeTokens
        .flatMap(t -> t.digestOf(id, node))
        .map(TaskLogKey::ofTokenSha256)
        .orElseThrow(
            () ->
                unavailable(
                    "node "
                        + node
                        + " serves its logs with token "
                        + id
                        + ", which is revoked or not a token of "
                        + node
                        + ": give its agent a live token (qm token create --node "
                        + node
                        + ") and restart it"));
  }

  private static HttpsURLConnection open(
      String node, LogEndpoint endpoint, String task, LogOptions options, String key)
      throws IOException {
    var query = options.query();
    var uri =
        URI.create(
            "https://"
                + endpoint.address()
                + "/v1/tasks/"
                + task
                + "/log"
                + (query.isEmpty() ? "" : "?" + query));
    var connection = (HttpsURLConnection) uri.toURL().openConnection();
    connection.setSSLSocketFactory(pinned(endpoint.certificateSha256()).getSocketFactory());
    // The trust manager accepts exactly the certificate the node published: its name is moot.
    connection.setHostnameVerifier((host, session) -> true);
    connection.setConnectTimeout(CONNECT_TIMEOUT_MS);
    connection.setReadTimeout(options.follow() ? 0 : READ_TIMEOUT_MS);
    connection.setRequestProperty("Authorization", "Bearer " + key);
    connection.setUseCaches(false);
    connection.setInstanceFollowRedirects(false);
    return connection;
  }

  private static SSLContext pinned(String sha256) throws IOException {
    try {
      var context = SSLContext.getInstance("TLS");
      context.init(null, new javax.net.ssl.TrustManager[] {new PinnedCertificate(sha256)}, null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot make a TLS context", e);
    }
  }

  private static String read(InputStream in) throws IOException {
    if (in == null) {
      return "";
    }
    try (in) {
      return new String(in.readNBytes(4096), StandardCharsets.UTF_8).strip();
    }
  }

  private static ApiException unavailable(String message) {
    return new ApiException(Reason.Unavailable, message);
  }

  /** Trusts one certificate, named by the SHA-256 of its DER encoding. */
  static final class PinnedCertificate extends javax.net.ssl.X509ExtendedTrustManager {
    private final byte[] sha256;

    PinnedCertificate(String hex) {
      this.sha256 = HexFormat.of().parseHex(hex);
    }

    private void check(java.security.cert.X509Certificate[] chain)
        throws java.security.cert.CertificateException {
      if (chain == null || chain.length == 0) {
        throw new java.security.cert.CertificateException("no certificate presented");
      }
      try {
        var got = MessageDigest.getInstance("SHA-256").digest(chain[0].getEncoded());
        if (!MessageDigest.isEqual(got, sha256)) {
          throw new java.security.cert.CertificateException(
              "certificate SHA-256 " + HexFormat.of().formatHex(got) + " is not the one published");
        }
      } catch (java.security.NoSuchAlgorithmException e) {
        throw new java.security.cert.CertificateException(e);
      }
    }

    @Override
    public void checkServerTrusted(
        java.security.cert.X509Certificate[] chain, String authType, java.net.Socket socket)
        throws java.security.cert.CertificateException {
      check(chain);
    }

    @Override
    public void checkServerTrusted(
        java.security.cert.X509Certificate[] chain, String authType, javax.net.ssl.SSLEngine engine)
        throws java.security.cert.CertificateException {
      check(chain);
    }

    @Override
    public void checkServerTrusted(java.security.cert.X509Certificate[] chain, String authType)
        throws java.security.cert.CertificateException {
      check(chain);
    }

    @Override
    public void checkClientTrusted(
        java.security.cert.X509Certificate[] chain, String authType, java.net.Socket socket)
        throws java.security.cert.CertificateException {
      throw new java.security.cert.CertificateException("not a server's trust manager");
    }

    @Override
    public void checkClientTrusted(
        java.security.cert.X509Certificate[] chain, String authType, javax.net.ssl.SSLEngine engine)
        throws java.security.cert.CertificateException {
      throw new java.security.cert.CertificateException("not a server's trust manager");
    }

    @Override
    public void checkClientTrusted(java.security.cert.X509Certificate[] chain, String authType)
        throws java.security.cert.CertificateException {
      throw new java.security.cert.CertificateException("not a server's trust manager");
    }

    @Override
    public java.security.cert.X509Certificate[] getAcceptedIssuers() {
      return new java.security.cert.X509Certificate[0];
    }
  }
}
