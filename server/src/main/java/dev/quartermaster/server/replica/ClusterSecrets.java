package dev.quartermaster.server.replica;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.core.env.OutsideEnv;
import dev.quartermaster.core.files.DurableFile;
import dev.quartermaster.server.auth.AdminToken;
import dev.quartermaster.server.tls.ServerCertificates;
import dev.quartermaster.store.KeyValue;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.Txn;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * What every server of one cluster shares, kept in the shared store (etcd) under {@link #KEY}: the
 * cluster's id, its admin token, and the CA that signs each server's certificate (as k3s keeps its
 * bootstrap data in its datastore). The first server made on an empty store creates them; every
 * other server, on any machine, copies them into its own data directory, so one admin token and one
 * {@code ca.crt} serve every replica. Whoever can read etcd can act as the cluster's admin: keep
 * etcd's client port private.
 *
 * <p>A data directory remembers its cluster ({@code cluster.id}). A store that has no cluster while
 * the directory was a replica of one, or holds another cluster, is refused naming both: an etcd
 * wiped or named with the wrong prefix must not start an empty cluster silently.
 */
@OutsideEnv(
    "the cluster's identity and secrets must come from a cryptographic source, never a seeded one")
public final class ClusterSecrets {
  public static final String KEY = "/bootstrap/secrets";
  public static final String CLUSTER_ID_FILE = "cluster.id";

  /**
   * As stored; {@code caCert} and {@code caKey} are PEM, empty until a server serving TLS made the
   * CA.
   */
  record Stored(String clusterId, String adminToken, String caCert, String caKey) {
    Stored {
      // The shared JSON codec leaves empty strings out: absent reads back as empty.
      caCert = caCert == null ? "" : caCert;
      caKey = caKey == null ? "" : caKey;
    }

    byte[] encode() {
      try {
        return ObjectCodec.json().writeValueAsBytes(this);
      } catch (JsonProcessingException e) {
        throw new IllegalStateException("cluster secrets always encode", e);
      }
    }

    static Stored decode(KeyValue kv) {
      try {
        return ObjectCodec.json().readValue(kv.value(), Stored.class);
      } catch (IOException e) {
        throw new IllegalStateException(
            "the store's "
                + KEY
                + " is not readable ("
                + e.getMessage()
                + "); it holds the cluster's admin token and CA: restore it from a backup of the store",
            e);
      }
    }

    boolean hasCa() {
      return !caCert.isEmpty() && !caKey.isEmpty();
    }
  }

  /** Why a server cannot join the store's cluster with this data directory. */
  public static final class Refused extends RuntimeException {
    Refused(String message) {
      super(message);
    }
  }

  private ClusterSecrets() {}

  /**
   * Makes {@code dataDir} hold the store's cluster's secrets, creating them first if the store has
   * none; with {@code tls}, the cluster's CA too (made by the first server that serves TLS).
   * Returns the cluster id and what this server made.
   *
   * @param storeName how to name the store in a refusal (its endpoints and prefix)
   * @throws Refused when the directory belongs to another cluster, or to one the store lost
   */
  public static Joined join(
      Store store, String storeName, Path dataDir, boolean tls, List<String> tlsNames, Instant now)
      throws IOException {
    var idFile = dataDir.resolve(CLUSTER_ID_FILE);
    Optional<String> remembered =
        Files.exists(idFile) ? Optional.of(Files.readString(idFile).strip()) : Optional.empty();
    boolean madeToken = false;
    boolean madeCa = false;
    while (true) {
      var current = store.get(KEY);
      if (current.isEmpty()) {
        if (remembered.isPresent()) {
          throw new Refused(
              dataDir
                  + " was a server of cluster "
                  + remembered.get()
                  + ", but "
                  + storeName
                  + " holds no cluster ("
                  + KEY
                  + " is missing): was etcd wiped, or is --etcd-prefix wrong? Restore etcd"
                  + " from a snapshot, or start this server with a fresh --data to make a new, empty cluster");
        }
        if (Files.exists(AdminToken.file(dataDir))) {
          throw new Refused(
              dataDir
                  + " holds the admin token of a cluster that is not on "
                  + storeName
                  + " (a SQLite data directory?); use a fresh --data for a server on etcd");
        }
        var fresh = new Stored(UUID.randomUUID().toString(), newToken(), "", "");
        madeToken =
            created(
                store,
                fresh); // or another server created it first: either way, read back what is there
        continue;
      }
      var secrets = Stored.decode(current.get());
      if (remembered.isPresent() && !remembered.get().equals(secrets.clusterId())) {
        throw new Refused(
            dataDir
                + " belongs to cluster "
                + remembered.get()
                + ", but "
                + storeName
                + " holds cluster "
                + secrets.clusterId()
                + "; use that cluster's etcd, or a fresh --data");
      }
      if (tls && !secrets.hasCa()) {
        var ca = ServerCertificates.newCa(now);
        var withCa =
            new Stored(secrets.clusterId(), secrets.adminToken(), ca.certificatePem(), ca.keyPem());
        madeCa =
            store
                .txn(
                    Txn.when(
                        List.of(new Txn.Compare.ModRevision(KEY, current.get().modRevision())),
                        List.of(new Txn.Op.Put(KEY, withCa.encode()))))
                .succeeded();
        continue; // ours or a racing server's CA: read it back
      }
      install(dataDir, secrets);
      return new Joined(secrets.clusterId(), madeToken, madeCa && secrets.hasCa());
    }
  }

  /**
   * A server's place in its cluster: the cluster's id, and whether this server made the admin token
   * and the CA (the first on an empty store does) or copied what another made.
   */
  public record Joined(String clusterId, boolean madeToken, boolean madeCa) {}

  private static boolean created(Store store, Stored fresh) {
    return store
        .txn(
            Txn.when(
                List.of(new Txn.Compare.ModRevision(KEY, 0)),
                List.of(new Txn.Op.Put(KEY, fresh.encode()))))
        .succeeded();
  }

  /**
   * Writes the secrets where the server and local clients read them; the id last, so a crash before
   * it leaves no claim.
   */
  private static void install(Path dataDir, Stored secrets) throws IOException {
    AdminToken.install(dataDir, secrets.adminToken());
    if (secrets.hasCa()) {
      ServerCertificates.installCa(dataDir, secrets.caCert(), secrets.caKey());
    }
    DurableFile.replaceIfChanged(
        dataDir.resolve(CLUSTER_ID_FILE),
        (secrets.clusterId() + "\n").getBytes(StandardCharsets.UTF_8));
  }

  private static String newToken() {
    var bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }
}
