package dev.quartermaster.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The training run of the client commands' ahead-of-time cache ({@code qm-cli.aot}, made by {@code
 * cli/src/build/AotCaches.java} at package time): every kind of command a user types, run in one
 * JVM against the build's own training server, so that the cache holds the classes each of them
 * loads (a cache trained on one command left the others to load theirs: 300 to 500 ms). Errors are
 * part of the training: their paths are commands too. Not a user command.
 */
public final class AotTraining {
  private AotTraining() {}

  /** {@code args}: the examples directory, then a node the training server has. */
  public static void main(String[] args) throws IOException {
    var examples = Path.of(args[0]);
    var node = args[1];
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
            List.of("get", "node", "nosuch"),
            List.of("logs", "nosuch", "--tail", "1"),
            List.of("describe", "task", "nosuch"),
            List.of("gt", "nodes"),
            List.of("version"),
            List.of("config", "list"));
    for (var line : lines) {
      // As Main.main runs a command: the tree of that command alone.
      var invocation = Invocation.read(line.toArray(String[]::new));
      Main.commandLine(CliEnvironment.ofProcess(), invocation).execute(invocation.forTree());
    }
    Files.deleteIfExists(scratch);
  }
}
