package dev.quartermaster.server.auth;

import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.error.ApiError;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.validation.Names;
import dev.quartermaster.core.env.OutsideEnv;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.Txn;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Node credentials, kept in the store (so every server replica sees the same ones, and a revoke
 * holds everywhere at once) under {@code /auth/nodetokens/<id>}, as the SHA-256 of the token only:
 * the token itself is shown once, when it is made. A token reads {@code qmn.<id>.<secret>}; its id
 * finds the record, and the digests are compared in constant time.
 */
@OutsideEnv("a credential must come from a cryptographic source, never a seeded one")
public final class NodeTokens {
  static final String PREFIX = "/auth/nodetokens/";
  private static final Pattern TOKEN = Pattern.compile("qmn\\.([0-9a-f]{16})\\.([0-9a-f]{64})");
  private static final Pattern ID = Pattern.compile("[0-9a-f]{16}");
  private static final SecureRandom RANDOM = new SecureRandom();

  /** What is stored of a token: never the token. */
  public record Info(String id, String node, Instant created) {}

  /** A token just made: the only time its secret is seen. */
  public record Issued(Info info, String token) {}

  record Stored(String id, String node, String sha256, Instant created) {}

  private final Store store;

  public NodeTokens(Store store) {
    this.store = store;
  }

  /** Makes a token for {@code node}. */
  public Issued create(String node, Instant now) {
    if (!Names.isDnsLabel(node)) {
      throw ApiException.invalid("token", List.of(new Violation("node", Names.DNS_LABEL_RULE)));
    }
    var id = HexFormat.of().formatHex(bytes(8));
    var token = "qmn." + id + "." + HexFormat.of().formatHex(bytes(32));
    var record = new Stored(id, node, digest(token), now);
    byte[] value;
    try {
      value = ObjectCodec.json().writeValueAsBytes(record);
    } catch (IOException e) {
      throw new IllegalStateException("a token record always encodes", e);
    }
    var result =
        store.txn(
            Txn.when(
                List.of(new Txn.Compare.ModRevision(PREFIX + id, 0)),
                List.of(new Txn.Op.Put(PREFIX + id, value))));
    if (!result.succeeded()) {
      throw new ApiException(ApiError.Reason.Conflict, "token id " + id + " is taken; try again");
    }
    return new Issued(new Info(id, node, now), token);
  }

  /** Every token, by id, without secrets. */
  public List<Info> list() {
    return store.range(PREFIX, 0).kvs().stream()
        .map(kv -> read(kv.value()))
        .map(NodeTokens::info)
        .toList();
  }

  /** Revokes token {@code id}: from now on no server accepts it. What it was, if it existed. */
  public Optional<Info> revoke(String id) {
    if (!ID.matcher(id).matches()) {
      return Optional.empty(); // no token has such an id (and it names no other key)
    }
    var found = store.get(PREFIX + id);
    if (found.isEmpty()) {
      return Optional.empty();
    }
    store.txn(Txn.when(List.of(), List.of(new Txn.Op.Delete(PREFIX + id))));
    return Optional.of(info(read(found.get().value())));
  }

  /** The id of {@code token} if it is shaped as a node token ({@code qmn.<id>.<secret>}). */
  public static Optional<String> idOf(String token) {
    var m = TOKEN.matcher(token);
    return m.matches() ? Optional.of(m.group(1)) : Optional.empty();
  }

  /** The node whose agent {@code token} stands for, if it is a live node token. */
  public Optional<Principal> authenticate(String token) {
    var m = TOKEN.matcher(token);
    if (!m.matches()) {
      return Optional.empty();
    }
    var stored = store.get(PREFIX + m.group(1)).map(kv -> read(kv.value()));
    var given = HexFormat.of().parseHex(digest(token));
    return stored
        .filter(s -> MessageDigest.isEqual(HexFormat.of().parseHex(s.sha256()), given))
        .map(s -> Principal.node(s.node()));
  }

  /**
   * The SHA-256 of live token {@code id}, if it is {@code node}'s: what the key of that node's log
   * endpoint derives from ({@link dev.quartermaster.api.logs.TaskLogKey}).
   */
  public Optional<byte[]> digestOf(String id, String node) {
    if (!ID.matcher(id).matches()) {
      return Optional.empty();
    }
    return store
        .get(PREFIX + id)
        .map(kv -> read(kv.value()))
        .filter(s -> s.node().equals(node))
        .map(s -> HexFormat.of().parseHex(s.sha256()));
  }

  private static Info info(Stored s) {
    return new Info(s.id(), s.node(), s.created());
  }

  private static Stored read(byte[] value) {
    try {
      return ObjectCodec.json().readValue(value, Stored.class);
    } catch (IOException e) {
      throw new IllegalStateException(
          "unreadable node token record in the store: " + e.getMessage(), e);
    }
  }

  private static byte[] bytes(int n) {
    var b = new byte[n];
    RANDOM.nextBytes(b);
    return b;
  }

  static String digest(String token) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
