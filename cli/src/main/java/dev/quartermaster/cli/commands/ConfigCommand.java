package dev.quartermaster.cli.commands;

import dev.quartermaster.api.table.Table;
import dev.quartermaster.cli.CliEnvironment;
import dev.quartermaster.cli.CliException;
import dev.quartermaster.cli.VersionInfo;
import dev.quartermaster.cli.config.ConfigFile;
import dev.quartermaster.cli.config.UserConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code qm config list | use NAME}: the clusters in the client configuration file and which one
 * plain {@code qm} commands use ({@code --context NAME} picks another for one command).
 */
@Command(
    name = "config",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description =
        "The clusters qm knows (from qm server and qm up) and the current one: list, use, delete.")
public final class ConfigCommand {

  public static picocli.CommandLine command(CliEnvironment env) {
    return new picocli.CommandLine(new ConfigCommand())
        .addSubcommand(new ListClusters(env))
        .addSubcommand(new Use(env))
        .addSubcommand(new Delete(env));
  }

  /** The config file at {@code file}; a missing one is an error that says who writes it. */
  private static ConfigFile existing(java.nio.file.Path file) {
    return ConfigFile.read(file)
        .orElseThrow(
            () ->
                new CliException("no config file at " + file + " (qm server and qm up write one)"));
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "List the clusters; * marks the current one.")
  static final class ListClusters implements Callable<Integer> {
    private final CliEnvironment env;

    @Spec CommandSpec spec;

    ListClusters(CliEnvironment env) {
      this.env = env;
    }

    @Override
    public Integer call() {
      var file = UserConfig.location(env);
      var config = ConfigFile.read(file).orElse(ConfigFile.EMPTY);
      if (config.clusters().isEmpty()) {
        spec.commandLine()
            .getErr()
            .println("No clusters in " + file + " (qm server and qm up add theirs).");
        return 0;
      }
      var rows = new ArrayList<List<String>>();
      config.clusters().entrySet().stream()
          .sorted(java.util.Map.Entry.comparingByKey())
          .forEach(
              e ->
                  rows.add(
                      List.of(
                          config.current().filter(e.getKey()::equals).isPresent() ? "*" : "",
                          e.getKey(),
                          e.getValue().server().orElse(Table.NONE),
                          e.getValue().tokenFile().orElse(Table.NONE),
                          e.getValue().caFile().orElse(Table.NONE))));
      var out = spec.commandLine().getOut();
      out.print(
          new Table(List.of("CURRENT", "NAME", "SERVER", "TOKEN FILE", "CA FILE"), rows).render());
      out.flush();
      return 0;
    }
  }

  @Command(
      name = "use",
      mixinStandardHelpOptions = true,
      description = "Make cluster NAME the current one.")
  static final class Use implements Callable<Integer> {
    private final CliEnvironment env;

    @Spec CommandSpec spec;

    @Parameters(index = "0", paramLabel = "NAME")
    String name;

    Use(CliEnvironment env) {
      this.env = env;
    }

    @Override
    public Integer call() {
      var file = UserConfig.location(env);
      existing(file);
      ConfigFile.update(file, config -> config.use(name, file));
      spec.commandLine().getOut().println("current cluster: " + name);
      return 0;
    }
  }

  @Command(
      name = "delete",
      mixinStandardHelpOptions = true,
      description =
          "Forget cluster NAME (a stopped or moved one); if it was current, none is until qm config"
              + " use names one.")
  static final class Delete implements Callable<Integer> {
    private final CliEnvironment env;

    @Spec CommandSpec spec;

    @Parameters(index = "0", paramLabel = "NAME")
    String name;

    Delete(CliEnvironment env) {
      this.env = env;
    }

    @Override
    public Integer call() {
      var file = UserConfig.location(env);
      var before = existing(file);
      ConfigFile.update(file, config -> config.without(name, file));
      var wasCurrent = before.current().filter(name::equals).isPresent();
      spec.commandLine()
          .getOut()
          .println(
              "deleted cluster "
                  + name
                  + (wasCurrent
                      ? "; no cluster is current now (qm config use NAME picks one)"
                      : ""));
      return 0;
    }
  }
}
