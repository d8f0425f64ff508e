package dev.quartermaster.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.store.registry.ObjectRegistry;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.DriverManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stored value changed behind the store's back is answered over HTTP as a 5xx JSON error naming
 * its key: never a 200 with the object decoded from the changed bytes (here: node a, renamed z).
 * The server here starts over the damaged file, as after a restart; one that wrote the object
 * itself serves it as written until something reads the value.
 */
@Timeout(60)
class CorruptStoredValueTest {
  private static final String KEY = "/registry/nodes/a";

  @TempDir Path dataDir;
  SqliteStore store;

  /** The registry that wrote the nodes, before the damage: it holds them decoded. */
  ObjectRegistry writer;

  TestServer t;

  @BeforeEach
  void start() throws Exception {
    store = SqliteStore.open(dataDir.resolve("store.db"));
    writer = new ObjectRegistry(store, new SystemEnv());
    writer.create(Samples.node("a"));
    writer.create(Samples.node("b"));
    // As an edit of the data file would: one byte of node a's stored JSON, its checksum left alone.
    try (var c = DriverManager.getConnection("jdbc:sqlite:" + store.file());
        var read = c.prepareStatement("SELECT value FROM log WHERE key = CAST(? AS BLOB)");
        var write = c.prepareStatement("UPDATE log SET value = ? WHERE key = CAST(? AS BLOB)")) {
      read.setString(1, KEY);
      String json;
      try (var rs = read.executeQuery()) {
        assertThat(rs.next()).isTrue();
        json = new String(rs.getBytes(1), StandardCharsets.UTF_8);
      }
      assertThat(json).contains("\"name\":\"a\"");
      write.setBytes(
          1, json.replace("\"name\":\"a\"", "\"name\":\"z\"").getBytes(StandardCharsets.UTF_8));
      write.setString(2, KEY);
      assertThat(write.executeUpdate()).isEqualTo(1);
    }
    // A server started over the damaged file (as after a restart) holds nothing decoded yet.
    t =
        TestServer.start(
            new ObjectRegistry(store, new SystemEnv()),
            dataDir,
            c -> c.withStoreRevision(store::currentRevision));
  }

  @AfterEach
  void stop() {
    t.close();
    store.close();
  }

  @Test
  void getIsA500NamingTheKey() {
    var response = t.send("GET", "/api/v1/nodes/a", "");
    assertThat(response.statusCode()).isEqualTo(500);
    var error = TestServer.error(response);
    assertThat(error.reason()).isEqualTo(Reason.Internal);
    assertThat(error.message()).contains("corrupt").contains("key " + KEY + " at revision 1");
    assertThat(response.body()).doesNotContain("\"z\"");

    var refused = catchThrowableOfType(ApiException.class, () -> t.client.get(Kinds.NODE, "a"));
    assertThat(refused.error().code()).isEqualTo(500);
    assertThat(t.client.get(Kinds.NODE, "b")).as("the other node is served").isPresent();
  }

  /**
   * The registry that wrote node a holds it decoded, and a read that finds the key still at that
   * revision is answered with it, without reading the value (the bytes were good when it wrote
   * them): the object as written, never the changed bytes. Whatever reads the value (a list, a
   * watch's replay, a write over it, a restart's reads) names the key.
   */
  @Test
  void aRegistryHoldingWhatItWroteServesItAsWrittenAndAListNamesTheKey() {
    assertThat(writer.get(Kinds.NODE, "a").orElseThrow().metadata().name()).isEqualTo("a");
    var refused = catchThrowableOfType(RuntimeException.class, () -> writer.list(Kinds.NODE));
    assertThat(refused.getMessage()).contains("key " + KEY + " at revision 1");
  }

  @Test
  void listIsA500NamingTheKey() {
    var response = t.send("GET", "/api/v1/nodes", "");
    assertThat(response.statusCode()).isEqualTo(500);
    assertThat(TestServer.error(response).message()).contains("key " + KEY + " at revision 1");
  }

  /**
   * Whether the refusal comes before the stream began (a 5xx answer) or after (the stream's ERROR
   * line, perhaps after a keep-alive) is timing; either way it is a 5xx naming the key, and no
   * event made of the changed bytes comes before it.
   */
  @Test
  void aWatchReplayingItEndsWithA5xxNamingTheKey() {
    var response = t.send("GET", "/api/v1/nodes?watch=true&revision=0", "");
    com.fasterxml.jackson.databind.JsonNode error;
    if (response.statusCode() == 200) {
      var lines = response.body().lines().map(TestServer::json).toList();
      assertThat(lines)
          .extracting(l -> l.get("type").asText())
          .isSubsetOf("BOOKMARK", "ERROR")
          .endsWith("ERROR");
      error = lines.getLast().get("error");
    } else {
      error = TestServer.json(response.body());
      assertThat(error.get("code").asInt()).isEqualTo(response.statusCode());
    }
    assertThat(error.get("code").asInt()).isBetween(500, 599);
    assertThat(error.get("message").asText()).contains("key " + KEY + " at revision 1 is corrupt");
  }

  @Test
  void anUpdateOverItIsA500NamingTheKey() throws IOException {
    var response =
        t.send(
            "PUT",
            "/api/v1/nodes/a",
            "{\"kind\":\"Node\",\"metadata\":{\"name\":\"a\",\"revision\":1}}");
    assertThat(response.statusCode()).isEqualTo(500);
    assertThat(TestServer.error(response).message()).contains("key " + KEY);
  }
}
