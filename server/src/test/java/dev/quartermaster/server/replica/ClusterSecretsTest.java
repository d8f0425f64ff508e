package dev.quartermaster.server.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.server.auth.AdminToken;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Servers sharing one store share one admin token and CA; a directory of another cluster is
 * refused.
 */
class ClusterSecretsTest {
  private static final Instant NOW = Instant.parse("2026-11-23T00:00:00Z");

  @TempDir Path dir;

  @Test
  void serversStartedAtOnceOnAnEmptyStoreEndUpWithOneTokenAndOneCa() throws Exception {
    try (var store = SqliteStore.open(dir.resolve("shared.db"))) {
      var dirs = new ArrayList<Path>();
      for (int i = 0; i < 4; i++) {
        dirs.add(Files.createDirectories(dir.resolve("server-" + i)));
      }
      var joined = new ArrayList<ClusterSecrets.Joined>();
      try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
        var futures =
            dirs.stream()
                .map(
                    d ->
                        pool.submit(
                            (Callable<ClusterSecrets.Joined>)
                                () ->
                                    ClusterSecrets.join(
                                        store, "the store", d, true, List.of("127.0.0.1"), NOW)))
                .toList();
        for (var f : futures) {
          joined.add(f.get());
        }
      }
      var ids = joined.stream().map(ClusterSecrets.Joined::clusterId).toList();
      assertThat(ids).as("one cluster").containsOnly(ids.getFirst());
      assertThat(joined.stream().filter(ClusterSecrets.Joined::madeToken))
          .as("one server made the token")
          .hasSize(1);
      assertThat(joined.stream().filter(ClusterSecrets.Joined::madeCa))
          .as("one server made the CA")
          .hasSize(1);
      for (var d : dirs) {
        assertThat(Files.readString(AdminToken.file(d)))
            .isEqualTo(Files.readString(AdminToken.file(dirs.getFirst())));
        assertThat(Files.readString(d.resolve("tls/ca.crt")))
            .isEqualTo(Files.readString(dirs.getFirst().resolve("tls/ca.crt")));
        assertThat(Files.readString(d.resolve("tls/ca.key")))
            .isEqualTo(Files.readString(dirs.getFirst().resolve("tls/ca.key")));
        assertThat(Files.getPosixFilePermissions(AdminToken.file(d))).hasSize(2); // rw-------
      }
    }
  }

  @Test
  void aServerWhoseStoreLostTheClusterRefusesToStartAnEmptyOne() throws Exception {
    var data = Files.createDirectories(dir.resolve("server"));
    try (var store = SqliteStore.open(dir.resolve("first.db"))) {
      ClusterSecrets.join(store, "etcd A", data, false, List.of(), NOW);
    }
    try (var wiped = SqliteStore.open(dir.resolve("wiped.db"))) {
      assertThatThrownBy(() -> ClusterSecrets.join(wiped, "etcd B", data, false, List.of(), NOW))
          .isInstanceOf(ClusterSecrets.Refused.class)
          .hasMessageContaining("etcd B holds no cluster")
          .hasMessageContaining("was etcd wiped");
      assertThat(wiped.get(ClusterSecrets.KEY)).as("nothing written").isEmpty();
    }
  }

  @Test
  void aDirectoryOfAnotherClusterOrOfSqliteIsRefused() throws Exception {
    var a = Files.createDirectories(dir.resolve("a"));
    var b = Files.createDirectories(dir.resolve("b"));
    try (var one = SqliteStore.open(dir.resolve("one.db"));
        var two = SqliteStore.open(dir.resolve("two.db"))) {
      ClusterSecrets.join(one, "etcd one", a, false, List.of(), NOW);
      ClusterSecrets.join(two, "etcd two", b, false, List.of(), NOW);
      assertThatThrownBy(() -> ClusterSecrets.join(two, "etcd two", a, false, List.of(), NOW))
          .isInstanceOf(ClusterSecrets.Refused.class)
          .hasMessageContaining("belongs to cluster");
    }
    var sqliteDir = Files.createDirectories(dir.resolve("sqlite"));
    AdminToken.loadOrCreate(sqliteDir);
    try (var empty = SqliteStore.open(dir.resolve("empty.db"))) {
      assertThatThrownBy(() -> ClusterSecrets.join(empty, "etcd", sqliteDir, false, List.of(), NOW))
          .isInstanceOf(ClusterSecrets.Refused.class)
          .hasMessageContaining("SQLite data directory");
    }
  }

  @Test
  void theCaIsMadeByTheFirstServerThatServesTls() throws Exception {
    var plain = Files.createDirectories(dir.resolve("plain"));
    var tls = Files.createDirectories(dir.resolve("tls"));
    try (var store = SqliteStore.open(dir.resolve("s.db"))) {
      ClusterSecrets.join(store, "etcd", plain, false, List.of(), NOW);
      assertThat(plain.resolve("tls/ca.crt")).doesNotExist();
      ClusterSecrets.join(store, "etcd", tls, true, List.of(), NOW);
      assertThat(tls.resolve("tls/ca.crt")).exists();
      ClusterSecrets.join(store, "etcd", plain, false, List.of(), NOW);
      assertThat(Files.readString(plain.resolve("tls/ca.crt")))
          .as("copied on the next start")
          .isEqualTo(Files.readString(tls.resolve("tls/ca.crt")));
    }
  }
}
