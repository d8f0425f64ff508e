package dev.quartermaster.cli.commands;

import dev.quartermaster.api.client.http.HttpApiClient;
import dev.quartermaster.api.client.http.HttpWire;
import dev.quartermaster.api.logs.LogOptions;
import dev.quartermaster.cli.CliEnvironment;
import dev.quartermaster.cli.CliException;
import dev.quartermaster.cli.VersionInfo;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code qm logs TASK}: a task's output, through the API server from the agent of the node that ran
 * it ({@code GET /api/v1/tasks/<task>/log}), wherever that node is: the same with {@code qm up}'s
 * nodes and with agents on other machines. {@code -f} follows it until the task's process ends;
 * {@code --previous} prints the attempt before (an earlier task of the same name on the same node,
 * e.g. the last crash of a crash-looping worker); {@code --tail} and {@code --since} cut it.
 */
@Command(
    name = "logs",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description =
        "Print a task's output, from its node's agent through the API server"
            + " (-f to follow it, --previous for the attempt before).")
public final class LogsCommand implements Callable<Integer> {
  private static final Pattern DURATION = Pattern.compile("(?:(\\d+)h)?(?:(\\d+)m)?(?:(\\d+)s)?");

  private final CliEnvironment env;

  @Spec private CommandSpec spec;

  @Mixin private ClientOptions client = new ClientOptions();

  @Parameters(index = "0", paramLabel = "TASK")
  private String name;

  @Option(
      names = {"-f", "--follow"},
      description = "keep printing new output until the task's process ends")
  private boolean follow;

  @Option(
      names = {"-p", "--previous"},
      description =
          "print the output of the previous attempt (an earlier task of this name on its node)")
  private boolean previous;

  @Option(
      names = "--tail",
      paramLabel = "N",
      description = "only the last N lines (-1, the default: all)")
  private long tail = -1;

  @Option(
      names = "--since",
      paramLabel = "DURATION",
      description = "only output written in the last DURATION (5s, 10m, 1h30m), to the second")
  private String since;

  @Option(names = "--limit-bytes", paramLabel = "N", description = "at most N bytes")
  private Long limitBytes;

  public LogsCommand(CliEnvironment env) {
    this.env = env;
  }

  @Override
  public Integer call() throws IOException {
    if (previous && follow) {
      throw new CliException(
          "--previous and --follow cannot be used together: the previous attempt has ended");
    }
    if (tail < -1) {
      throw new CliException("--tail: must be -1 (all) or >= 0, got " + tail);
    }
    if (limitBytes != null && limitBytes < 1) {
      throw new CliException("--limit-bytes: must be >= 1, got " + limitBytes);
    }
    var options =
        new LogOptions(
            follow,
            previous,
            tail < 0 ? OptionalLong.empty() : OptionalLong.of(tail),
            since == null ? OptionalLong.empty() : OptionalLong.of(seconds(since)),
            limitBytes == null ? OptionalLong.empty() : OptionalLong.of(limitBytes));
    try (var connection = client.connect(env)) {
      if (!(connection.api() instanceof HttpApiClient http)) {
        throw new CliException("task output is read over HTTP; this connection is not");
      }
      var query = options.query();
      var path =
          "tasks/"
              + HttpWire.encodeQueryValue(name)
              + "/"
              + HttpWire.LOG_SUFFIX
              + (query.isEmpty() ? "" : "?" + query);
      var out = spec.commandLine().getOut();
      if (!follow) {
        // Once, on the client's kept connection: the streaming client costs a command a tenth of a
        // second to build, which only a follower needs.
        out.print(
            new String(
                http.exchange("GET", path, java.util.Optional.empty()), StandardCharsets.UTF_8));
        out.flush();
        return 0;
      }
      try (var in = http.stream(path)) {
        copy(in, out);
      }
    }
    return 0;
  }

  /** Copies as it comes: a follower sees each line as the task writes it. */
  private static void copy(java.io.InputStream in, PrintWriter out) throws IOException {
    // A reader keeps a character split across two reads whole.
    var text = new InputStreamReader(in, StandardCharsets.UTF_8);
    var buffer = new char[8 * 1024];
    int n;
    while ((n = text.read(buffer)) >= 0) {
      out.write(buffer, 0, n);
      if (!text.ready()) {
        out.flush();
      }
    }
    out.flush();
  }

  /** {@code 90s}, {@code 10m}, {@code 1h30m}: whole seconds, at least one. */
  static long seconds(String text) {
    var m = DURATION.matcher(text);
    if (text.isEmpty() || !m.matches()) {
      throw new CliException(
          "--since '" + text + "': must be a duration such as 30s, 10m, 2h or 1h30m");
    }
    long s = 0;
    if (m.group(1) != null) {
      s += Long.parseLong(m.group(1)) * 3600;
    }
    if (m.group(2) != null) {
      s += Long.parseLong(m.group(2)) * 60;
    }
    if (m.group(3) != null) {
      s += Long.parseLong(m.group(3));
    }
    if (s < 1) {
      throw new CliException("--since '" + text + "': must be at least 1s");
    }
    return s;
  }
}
