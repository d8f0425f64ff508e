package dev.quartermaster.cli.commands;

import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.cli.CliEnvironment;
import dev.quartermaster.cli.CliException;
import dev.quartermaster.cli.VersionInfo;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code qm logs TASK [-f | --previous]}: a task's output. The agent writes it on the task's node,
 * to {@code <state>/tasks/<task>.log}; for a cluster started with {@code qm up} every node's state
 * is under the data directory, so the file is read directly. {@code -f} follows it until the task
 * finishes. {@code --previous} prints the output of the attempt before (an earlier task of the same
 * name on the same node, e.g. the last crash of a crash-looping worker), which the agent keeps in
 * {@code <task>.previous.log}.
 */
@Command(
    name = "logs",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description = "Print a task's output (-f to follow it, --previous for the attempt before).")
public final class LogsCommand implements Callable<Integer> {
  private final CliEnvironment env;

  @Spec private CommandSpec spec;

  @Mixin private ClientOptions client = new ClientOptions();

  @Parameters(index = "0", paramLabel = "TASK")
  private String name;

  @Option(
      names = {"-f", "--follow"},
      description = "keep printing new output until the task finishes")
  private boolean follow;

  @Option(
      names = {"-p", "--previous"},
      description =
          "print the output of the previous attempt (an earlier task of this name on its node)")
  private boolean previous;

  @Option(
      names = "--data",
      paramLabel = "DIR",
      description = "the qm up data directory (default: the directory of the token file)")
  private String data;

  public LogsCommand(CliEnvironment env) {
    this.env = env;
  }

  @Override
  public Integer call() throws IOException, InterruptedException {
    if (previous && follow) {
      throw new CliException(
          "--previous and --follow cannot be used together: the previous attempt has ended");
    }
    var config = client.config(env);
    try (var connection = client.connect(env)) {
      var api = connection.api();
      var task =
          api.get(Kinds.TASK, name)
              .orElseThrow(() -> new CliException("task/" + name + " not found"));
      var node =
          task.spec()
              .node()
              .or(() -> task.status().node())
              .orElseThrow(
                  () ->
                      new CliException(
                          "task/"
                              + name
                              + " has no node yet (phase "
                              + task.status().phase()
                              + "): no output so far"));
      var dataDir =
          data != null ? env.resolve(data) : config.tokenFile().toAbsolutePath().getParent();
      var layout = UpLayout.of(dataDir);
      var file = previous ? layout.previousTaskLog(node, name) : layout.taskLog(node, name);
      if (previous && !Files.exists(file)) {
        throw new CliException(
            "no previous attempt of task/"
                + name
                + " on "
                + node
                + " (looked for "
                + file
                + "): it is the first that ran there, or "
                + node
                + " is not a node of the local cluster in "
                + dataDir);
      }
      if (!Files.exists(file)) {
        throw new CliException(
            "no output for task/"
                + name
                + " at "
                + file
                + " (the task has not started on "
                + node
                + " yet, or "
                + node
                + " is not a node of the local cluster in "
                + dataDir
                + ")");
      }
      var out = spec.commandLine().getOut();
      try (var in = Files.newInputStream(file)) {
        copy(in, out);
        if (follow) {
          followUntilFinished(
              in,
              out,
              file,
              () ->
                  api.get(Kinds.TASK, name)
                      .map(Task::status)
                      .map(s -> s.phase().isFinished())
                      .orElse(true));
        }
      }
    }
    return 0;
  }

  private static void copy(InputStream in, PrintWriter out) throws IOException {
    var buffer = new byte[8192];
    int n;
    while ((n = in.read(buffer)) > 0) {
      out.print(new String(buffer, 0, n, StandardCharsets.UTF_8));
    }
    out.flush();
  }

  /**
   * Prints what is appended, woken by file events and at least once a second to look at the task's
   * phase.
   */
  private static void followUntilFinished(
      InputStream in, PrintWriter out, Path file, java.util.function.BooleanSupplier finished)
      throws IOException, InterruptedException {
    try (var watcher = file.getFileSystem().newWatchService()) {
      file.getParent().register(watcher, StandardWatchEventKinds.ENTRY_MODIFY);
      while (true) {
        copy(in, out);
        if (finished.getAsBoolean()) {
          copy(in, out);
          return;
        }
        var key = watcher.poll(1, TimeUnit.SECONDS);
        if (key != null) {
          key.pollEvents();
          key.reset();
        }
      }
    }
  }
}
