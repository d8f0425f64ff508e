package dev.quartermaster.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.cli.CliException;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.store.Txn;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.io.PrintWriter;
import java.io.RandomAccessFile;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code qm server} on a data dir whose store was lost or damaged: a loud, named refusal; and
 * {@code --check}.
 */
class StoreDamageTest {
  private static final ListenAddress ANY_PORT = ListenAddress.parse("127.0.0.1:0");

  @TempDir Path data;

  private Path storeFile() {
    return data.resolve(LocalServer.STORE_FILE);
  }

  /** Starts and stops a server, as a cluster that ran once leaves its data dir. */
  private void runOnce() {
    try (var server = LocalServer.start(data, ANY_PORT, new SystemEnv())) {
      assertThat(server.tokenFile()).exists();
    }
  }

  @Test
  void aFreshDataDirStarts() {
    runOnce();
    assertThat(SqliteStore.markerOf(storeFile())).exists();
    runOnce();
  }

  @Test
  void aDeletedStoreIsRefusedNamingWhatShowsAClusterRanHere() throws Exception {
    runOnce();
    Files.delete(storeFile());

    assertThatThrownBy(() -> LocalServer.start(data, ANY_PORT, new SystemEnv()))
        .isInstanceOf(CliException.class)
        .hasMessageContaining(storeFile().toAbsolutePath().toString())
        .hasMessageContaining("admin.token")
        .hasMessageContaining("store.db.id")
        .hasMessageContaining("Restore")
        .hasMessageNotContaining("another qm server");
  }

  @Test
  void aDataDirFromBeforeTheMarkerIsRecognisedByItsAdminToken() throws Exception {
    runOnce();
    Files.delete(storeFile());
    Files.delete(SqliteStore.markerOf(storeFile()));

    assertThatThrownBy(() -> LocalServer.start(data, ANY_PORT, new SystemEnv()))
        .isInstanceOf(CliException.class)
        .hasMessageContaining("admin.token");
  }

  @Test
  void checkSaysOkForASoundStoreAndExitsOneForADamagedOne() throws Exception {
    try (var store = SqliteStore.open(storeFile())) {
      for (int i = 0; i < 300; i++) {
        store.txn(Txn.when(List.of(), List.of(new Txn.Op.Put("/k/" + i, new byte[600]))));
      }
    }
    var out = new StringWriter();
    assertThat(StoreCheck.run(storeFile(), new PrintWriter(out))).isZero();
    assertThat(out.toString()).contains("ok");

    int page = 4096;
    try (var raf = new RandomAccessFile(storeFile().toFile(), "rw")) {
      byte[] garbage = new byte[page];
      Arrays.fill(garbage, (byte) 0x5A);
      raf.seek(Files.size(storeFile()) / page / 2 * page);
      raf.write(garbage);
    }
    var damaged = new StringWriter();
    assertThat(StoreCheck.run(storeFile(), new PrintWriter(damaged))).isEqualTo(1);
    assertThat(damaged.toString()).contains(storeFile().toString()).contains("DAMAGED");
    assertThatThrownBy(() -> LocalServer.start(data, ANY_PORT, new SystemEnv()))
        .isInstanceOf(CliException.class)
        .hasMessageContaining(storeFile().toAbsolutePath().toString())
        .satisfies(e -> assertThat(e.getMessage()).containsAnyOf("damaged", "corrupt"));
  }

  /**
   * A byte changed inside a stored value leaves every SQLite page well formed, so integrity_check
   * alone said ok: the checksums name each corrupt value by key, and the exit code is 1.
   */
  @Test
  void checkNamesEachValueThatDoesNotMatchItsChecksum() throws Exception {
    try (var store = SqliteStore.open(storeFile())) {
      for (var name : List.of("a", "b", "c")) {
        store.txn(
            Txn.when(
                List.of(),
                List.of(
                    new Txn.Op.Put(
                        "/registry/nodes/" + name,
                        ("{\"metadata\":{\"name\":\"" + name + "\"}}")
                            .getBytes(java.nio.charset.StandardCharsets.UTF_8)))));
      }
    }
    var sound = new StringWriter();
    assertThat(StoreCheck.run(storeFile(), new PrintWriter(sound))).isZero();
    assertThat(sound.toString())
        .contains(
            ": ok (integrity_check found no problems; 3 stored values match their CRC32C checksums)");

    // As an edit of the file would: node a renamed b, node c renamed d, their checksums left alone.
    try (var c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + storeFile());
        var s = c.createStatement()) {
      s.executeUpdate(
          "UPDATE log SET value = CAST('{\"metadata\":{\"name\":\"b\"}}' AS BLOB) WHERE revision = 1");
      s.executeUpdate(
          "UPDATE log SET value = CAST('{\"metadata\":{\"name\":\"d\"}}' AS BLOB) WHERE revision = 3");
    }
    var damaged = new StringWriter();
    assertThat(StoreCheck.run(storeFile(), new PrintWriter(damaged))).isEqualTo(1);
    assertThat(damaged.toString())
        .contains(storeFile() + ": DAMAGED, 2 problem(s):")
        .contains("  key /registry/nodes/a at revision 1 (log row 1) is corrupt: its CRC32C is 0x")
        .contains("  key /registry/nodes/c at revision 3 (log row 3) is corrupt: its CRC32C is 0x")
        .doesNotContain("/registry/nodes/b at");
  }
}
