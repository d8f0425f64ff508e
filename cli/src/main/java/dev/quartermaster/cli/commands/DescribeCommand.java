package dev.quartermaster.cli.commands;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.cli.CliEnvironment;
import dev.quartermaster.cli.VersionInfo;
import dev.quartermaster.cli.describe.DescribeContext;
import dev.quartermaster.cli.describe.Describers;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code qm describe KIND NAME}: one object in detail, with the related objects that explain its
 * state.
 */
@Command(
    name = "describe",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description =
        "Show one object in detail: metadata, spec, status, conditions and related objects.")
public final class DescribeCommand implements Callable<Integer> {
  private final CliEnvironment env;

  @Spec private CommandSpec spec;

  @Mixin private ClientOptions client = new ClientOptions();

  @Parameters(index = "0", paramLabel = "KIND", completionCandidates = KindCandidates.class)
  private String kindName;

  @Parameters(index = "1", paramLabel = "NAME")
  private String name;

  @Option(
      names = {"--channels", "--devices"},
      description =
          "with a node or a device slice: list every IMEX channel, not only the held ones or a"
              + " count")
  private boolean everyChannel;

  public DescribeCommand(CliEnvironment env) {
    this.env = env;
  }

  @Override
  public Integer call() {
    var kind = KindNames.resolve(kindName);
    try (var connection = client.connect(env)) {
      var api = connection.api();
      var object =
          api.get(kind, name)
              .orElseThrow(
                  () ->
                      new ApiException(
                          Reason.NotFound, kind.singular() + "/" + name + " not found"));
      var out = spec.commandLine().getOut();
      out.print(
          Describers.describe(
              object, new DescribeContext(api, env.clock().instant(), everyChannel)));
      out.flush();
    }
    return 0;
  }
}
