package dev.quartermaster.api.node;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Where a node's agent serves its tasks' output, as the agent publishes it in its Node's status
 * (which only that node's credential may write): HTTPS at {@code address}, with a certificate of
 * its own whose SHA-256 the API server pins, and which credential the server's calls prove they
 * hold (see {@link dev.quartermaster.api.logs.TaskLogKey}).
 *
 * @param address {@code host:port} (an IPv6 host in brackets)
 * @param certificateSha256 the SHA-256 of the agent's DER certificate, 64 lowercase hex digits
 * @param credential {@link #ADMIN_TOKEN} or {@code node-token/<id>}: the token the key derives from
 */
public record LogEndpoint(String address, String certificateSha256, String credential) {
  /** The key derives from the cluster's admin token (agents inside {@code qm up}'s process). */
  public static final String ADMIN_TOKEN = "admin-token";

  /** The prefix of a node token credential; the token's id follows. */
  public static final String NODE_TOKEN = "node-token/";

  public static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");
  public static final Pattern CREDENTIAL = Pattern.compile("admin-token|node-token/[0-9a-f]{16}");
  public static final Pattern ADDRESS =
      Pattern.compile("(\\[[0-9A-Fa-f:.]{2,45}]|[A-Za-z0-9.-]{1,253}):[0-9]{1,5}");

  public LogEndpoint {
    Objects.requireNonNull(address, "address");
    Objects.requireNonNull(certificateSha256, "certificateSha256");
    Objects.requireNonNull(credential, "credential");
  }

  /** A credential naming node token {@code id}. */
  public static String nodeToken(String id) {
    return NODE_TOKEN + id;
  }
}
