package dev.quartermaster.cli.commands;

import com.fasterxml.jackson.databind.JsonNode;
import dev.quartermaster.api.client.http.HttpApiClient;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.table.Table;
import dev.quartermaster.cli.CliEnvironment;
import dev.quartermaster.cli.CliException;
import dev.quartermaster.cli.VersionInfo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code qm token create --node NAME | list | revoke ID}: node credentials, for an admin. A node's
 * agent given its token ({@code qm agent --token-file}) may write only its own node's objects.
 */
@Command(
    name = "token",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description = "Manage node credentials: create, list, revoke.")
public final class TokenCommand {

  public static picocli.CommandLine command(CliEnvironment env) {
    return new picocli.CommandLine(new TokenCommand())
        .addSubcommand(new Create(env))
        .addSubcommand(new ListTokens(env))
        .addSubcommand(new Revoke(env));
  }

  abstract static class Call implements Callable<Integer> {
    final CliEnvironment env;

    @Spec CommandSpec spec;

    @Mixin ClientOptions client = new ClientOptions();

    Call(CliEnvironment env) {
      this.env = env;
    }

    /** {@code method} on {@code /api/v1/tokens[/...]} over HTTP, the answer read as JSON. */
    JsonNode call(String method, String path, Optional<Object> body) {
      try (var connection = client.connect(env)) {
        if (!(connection.api() instanceof HttpApiClient http)) {
          throw new CliException("node tokens are managed over HTTP; this connection is not");
        }
        var json =
            body.map(
                b -> {
                  try {
                    return ObjectCodec.json().writeValueAsBytes(b);
                  } catch (IOException e) {
                    throw new IllegalStateException(e);
                  }
                });
        var answer = http.exchange(method, path, json);
        try {
          return ObjectCodec.json().readTree(new String(answer, StandardCharsets.UTF_8));
        } catch (IOException e) {
          throw new CliException(
              "the server's answer to " + method + " " + path + " is not JSON: " + e.getMessage());
        }
      }
    }

    void print(String line) {
      spec.commandLine().getOut().println(line);
    }
  }

  @Command(
      name = "create",
      mixinStandardHelpOptions = true,
      description = "Make a credential for one node's agent.")
  static final class Create extends Call {
    @Option(
        names = "--node",
        required = true,
        paramLabel = "NAME",
        description = "the node whose agent uses it")
    String node;

    Create(CliEnvironment env) {
      super(env);
    }

    @Override
    public Integer call() {
      var issued = call("POST", "tokens", Optional.of(Map.of("node", node)));
      print(
          "token/"
              + issued.path("id").asText()
              + " created for node "
              + issued.path("node").asText()
              + " (shown this once; give it to that node's agent: qm agent --token-file FILE):");
      print(issued.path("token").asText());
      return 0;
    }
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "List node credentials (never their secrets).")
  static final class ListTokens extends Call {
    ListTokens(CliEnvironment env) {
      super(env);
    }

    @Override
    public Integer call() {
      var items = call("GET", "tokens", Optional.empty()).path("items");
      if (items.isEmpty()) {
        spec.commandLine().getErr().println("No node tokens found.");
        return 0;
      }
      List<Function<JsonNode, String>> columns =
          List.of(
              t -> t.path("id").asText(),
              t -> t.path("node").asText(),
              t -> t.path("created").asText());
      var rows = new java.util.ArrayList<List<String>>();
      items.forEach(t -> rows.add(columns.stream().map(c -> c.apply(t)).toList()));
      var out = spec.commandLine().getOut();
      out.print(new Table(List.of("ID", "NODE", "CREATED"), rows).render());
      out.flush();
      return 0;
    }
  }

  @Command(
      name = "revoke",
      mixinStandardHelpOptions = true,
      description = "Revoke a node credential at once.")
  static final class Revoke extends Call {
    @Parameters(index = "0", paramLabel = "ID")
    String id;

    Revoke(CliEnvironment env) {
      super(env);
    }

    @Override
    public Integer call() {
      var revoked = call("DELETE", "tokens/" + id, Optional.empty());
      print("token/" + id + " revoked (node " + revoked.path("node").asText() + ")");
      return 0;
    }
  }
}
