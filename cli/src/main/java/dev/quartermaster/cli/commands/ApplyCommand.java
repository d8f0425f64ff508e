package dev.quartermaster.cli.commands;

import dev.quartermaster.api.client.http.HttpApiClient;
import dev.quartermaster.api.validation.ObjectValidator;
import dev.quartermaster.cli.CliEnvironment;
import dev.quartermaster.cli.CliException;
import dev.quartermaster.cli.VersionInfo;
import dev.quartermaster.cli.apply.Applier;
import dev.quartermaster.cli.apply.Manifest;
import dev.quartermaster.cli.apply.ManifestReader;
import dev.quartermaster.cli.apply.ReadyWait;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code qm apply -f FILE|DIR|-}: creates or updates every object in the manifests. Every document
 * is decoded and validated first; if any is invalid, nothing is sent and every violation is listed.
 */
@Command(
    name = "apply",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description =
        "Create or update objects from YAML/JSON manifests (multi-document; a directory means its *.yaml, *.yml, *.json).")
public final class ApplyCommand implements Callable<Integer> {
  private final CliEnvironment env;

  @Spec private CommandSpec spec;

  @Mixin private ClientOptions client = new ClientOptions();

  @Option(
      names = {"-f", "--filename"},
      required = true,
      paramLabel = "FILE|DIR|-",
      description = "a manifest file, a directory of them, or - for standard input (repeatable)")
  private List<String> files = new ArrayList<>();

  @Option(
      names = "--wait",
      description =
          "then wait until what was applied is running or ready: every replica of a"
              + " workload Running, a task Running, a claim allocated, a volume Available, a domain Ready")
  private boolean waitReady;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      defaultValue = "5m",
      converter = DurationConverter.class,
      description = "with --wait: give up after this long (default: ${DEFAULT-VALUE})")
  private Duration timeout;

  @Option(
      names = "--dry-run",
      paramLabel = "none|client|server",
      defaultValue = "none",
      description =
          "client: decode and validate here and say what would be done, sending nothing; server:"
              + " the server judges each create or update (the kind's rules, access, the name taken"
              + " or the revision current) and stores nothing")
  private String dryRun;

  public ApplyCommand(CliEnvironment env) {
    this.env = env;
  }

  @Override
  public Integer call() throws InterruptedException {
    var manifests = new ManifestReader(env).read(files);
    if (manifests.isEmpty()) {
      throw new CliException("no objects in " + String.join(", ", files));
    }
    requireValid(manifests);
    if (!List.of("none", "client", "server").contains(dryRun)) {
      throw new CliException("--dry-run: must be none, client or server, got '" + dryRun + "'");
    }
    if (!dryRun.equals("none") && waitReady) {
      throw new CliException("--dry-run and --wait cannot be used together: nothing is applied");
    }
    var out = spec.commandLine().getOut();
    if (dryRun.equals("client")) {
      for (var m : manifests) {
        out.println(m.object().ref() + " valid (dry run: nothing sent)");
      }
      out.flush();
      return 0;
    }
    try (var connection = client.connect(env)) {
      var applier = new Applier(connection.api());
      var said = "";
      if (dryRun.equals("server")) {
        if (!(connection.api() instanceof HttpApiClient http)) {
          throw new CliException("--dry-run=server needs a connection over HTTP");
        }
        applier = new Applier(connection.api(), Applier.serverDryRun(http));
        said = " (server dry run)";
      }
      for (var m : manifests) {
        out.println(m.object().ref() + " " + applier.apply(m.object()) + said);
        out.flush();
      }
      if (waitReady) {
        return new ReadyWait(connection.api(), env.clock(), out)
            .await(manifests.stream().map(Manifest::object).toList(), timeout);
      }
    }
    return 0;
  }

  private static void requireValid(List<Manifest> manifests) {
    var problems = new ArrayList<String>();
    var invalid = 0;
    for (var m : manifests) {
      var violations = ObjectValidator.validate(m.object());
      if (!violations.isEmpty()) {
        invalid++;
        violations.forEach(v -> problems.add(m.where() + ": " + v));
      }
    }
    if (invalid > 0) {
      throw new CliException(
          invalid
              + " of "
              + manifests.size()
              + " documents "
              + (invalid == 1 ? "is" : "are")
              + " invalid; nothing was applied",
          problems);
    }
  }
}
