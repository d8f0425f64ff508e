package dev.quartermaster.cli;

import dev.quartermaster.cli.fast.FastGet;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The training runs of the client commands' ahead-of-time caches, made by {@code
 * cli/src/build/AotCaches.java} at package time against two servers of the build's own, one over
 * HTTP and one over HTTPS: {@code listing} trains {@code qm-get.aot} with the lean table listing,
 * {@code commands} trains {@code qm-cli.aot} with every kind of command a user types, in one JVM,
 * so that the cache holds the classes each of them loads (a cache trained on one command over HTTP
 * left the others, and every HTTPS command, to load theirs: 250 to 500 ms). Errors are part of the
 * training: their paths are commands too. Not a user command.
 *
 * <p>{@code args}: the mode, the examples directory, a node the servers have, then one {@code
 * URL|TOKEN_FILE|CA_FILE} per server (an empty CA for HTTP).
 */
public final class AotTraining {
  private AotTraining() {}

  public static void main(String[] args) throws IOException {
    var mode = args[0];
    var examples = Path.of(args[1]);
    var node = args[2];
    var connections = new ArrayList<List<String>>();
    for (int i = 3; i < args.length; i++) {
      var parts = args[i].split("\\|", -1);
      var flags = new ArrayList<>(List.of("--server", parts[0], "--token-file", parts[1]));
      if (!parts[2].isEmpty()) {
        flags.addAll(List.of("--ca-file", parts[2]));
      }
      connections.add(flags);
    }
    Main.nameSelectorProvider();
    if (mode.equals("listing")) {
      var out = new PrintWriter(new OutputStreamWriter(System.out, System.out.charset()));
      // Through the config file first, as a user's commands find the server; then each server.
      FastGet.parse(Invocation.read("get", "nodes"))
          .orElseThrow()
          .run(CliEnvironment.ofProcess(), out, out);
      for (var flags : connections) {
        var line = new ArrayList<>(List.of("get", "nodes"));
        line.addAll(flags);
        FastGet.parse(Invocation.read(line.toArray(String[]::new)))
            .orElseThrow()
            .run(CliEnvironment.ofProcess(), out, out);
        for (var json :
            List.of(
                List.of("get", "nodes", "-o", "json"),
                List.of("get", "node", node, "-o", "json"))) {
          var withFlags = new ArrayList<>(json);
          withFlags.addAll(flags);
          FastGet.parse(Invocation.read(withFlags.toArray(String[]::new)))
              .orElseThrow()
              .run(CliEnvironment.ofProcess(), out, out);
        }
        var missing = new ArrayList<>(List.of("get", "node", "nosuch"));
        missing.addAll(flags);
        FastGet.parse(Invocation.read(missing.toArray(String[]::new)))
            .orElseThrow()
            .run(CliEnvironment.ofProcess(), out, out);
      }
      out.flush();
      return;
    }
    var scratch = Files.createTempFile("qm-training", ".yaml");
    Files.writeString(
        scratch,
        """
        kind: DeviceClass
        metadata: {name: training-class}
        spec: {class: gpu}
        """);
    var deviceClasses = examples.resolve("deviceclass.yaml").toString();
    var lines =
        List.of(
            List.of("describe", "node", node),
            List.of("get", "nodes", "-o", "json"),
            List.of("get", "deviceclasses", "-o", "yaml"),
            List.of("get", "node", node, "-o", "name"),
            List.of("apply", "-f", deviceClasses),
            List.of("apply", "-f", scratch.toString()),
            List.of("delete", "-f", scratch.toString()),
            List.of("delete", "deviceclass", "training-class", "--ignore-not-found"),
            List.of("get", "node", "nosuch", "-o", "json"),
            List.of("logs", "nosuch", "--tail", "1"),
            List.of("describe", "task", "nosuch"),
            List.of("gt", "nodes"),
            List.of("version"),
            List.of("config", "list"));
    for (var flags : connections) {
      for (var line : lines) {
        var withFlags = new ArrayList<>(line);
        if (!line.getFirst().equals("version")
            && !line.getFirst().equals("gt")
            && !line.getFirst().equals("config")) {
          withFlags.addAll(flags);
        }
        // As Main.main runs a command: the tree of that command alone.
        var invocation = Invocation.read(withFlags.toArray(String[]::new));
        Main.commandLine(CliEnvironment.ofProcess(), invocation).execute(invocation.forTree());
      }
    }
    Files.deleteIfExists(scratch);
  }
}
