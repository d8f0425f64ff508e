package dev.quartermaster.cli.failover;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.client.http.HttpApiClient;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.cli.commands.ListenAddress;
import dev.quartermaster.cli.commands.LocalServer;
import dev.quartermaster.core.env.SystemEnv;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent whose cluster cannot take its start (no server answers yet; in the partitions harness, a
 * store without a leader) waits and says so, then joins once the server answers. The agent before
 * this exited at the first refusal, "error: cannot reach the server", and its node's tasks went
 * unwatched until someone started it again: this test saw it exit before it printed the wait.
 */
class AgentWaitsForTheClusterTest {
  @TempDir Path dir;

  @Test
  void anAgentStartedBeforeItsServerWaitsAndJoins() throws Exception {
    // The server's store and token made, then the server stopped: the agent starts without it.
    var data = dir.resolve("data");
    var token = dir.resolve("n1.token");
    int port;
    try (var first = LocalServer.start(data, ListenAddress.parse("127.0.0.1:0"), new SystemEnv());
        var api = new HttpApiClient(first.uri(), Files.readString(first.tokenFile()).strip())) {
      port = first.uri().getPort();
      var answer =
          ObjectCodec.json()
              .readTree(
                  api.exchange(
                      "POST",
                      "tokens",
                      Optional.of("{\"node\": \"n1\"}".getBytes(StandardCharsets.UTF_8))));
      Files.writeString(token, answer.get("token").asText() + "\n");
    }
    try (var agent =
        QmChild.start(
            dir,
            "agent",
            "trying again in",
            List.of(
                "agent",
                "--server",
                "http://127.0.0.1:" + port,
                "--token-file",
                token.toString(),
                "--node",
                "n1",
                "--state",
                dir.resolve("n1").toString(),
                "--cdi-dir",
                dir.resolve("n1-cdi").toString(),
                "--simulated-gpus",
                "1"))) {
      assertThat(agent.log())
          .contains("qm agent: node n1 cannot start with the cluster now (cannot reach the server");
      try (var server =
          LocalServer.start(data, ListenAddress.parse("127.0.0.1:" + port), new SystemEnv())) {
        agent.awaitOutput("is running.", Duration.ofSeconds(90));
        assertThat(server.registry().get(Kinds.NODE, "n1")).isPresent();
      }
    }
  }
}
