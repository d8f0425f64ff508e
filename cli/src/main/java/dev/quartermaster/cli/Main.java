package dev.quartermaster.cli;

import dev.quartermaster.cli.commands.AgentCommand;
import dev.quartermaster.cli.commands.ApplyCommand;
import dev.quartermaster.cli.commands.CsiCommand;
import dev.quartermaster.cli.commands.DeleteCommand;
import dev.quartermaster.cli.commands.DescribeCommand;
import dev.quartermaster.cli.commands.DomainDaemonCommand;
import dev.quartermaster.cli.commands.GetCommand;
import dev.quartermaster.cli.commands.LogsCommand;
import dev.quartermaster.cli.commands.CompletionCommand;
import dev.quartermaster.cli.commands.ConfigCommand;
import dev.quartermaster.cli.commands.NodeCommand;
import dev.quartermaster.cli.commands.TokenCommand;
import dev.quartermaster.cli.commands.ServerCommand;
import dev.quartermaster.cli.commands.UpCommand;
import dev.quartermaster.cli.commands.VersionCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * {@code qm}: the command line. Exit codes: 0 success; 1 an error, reported as one line {@code error:
 * <reason>} on stderr (plus indented details where there are several); 2 a usage error.
 */
@Command(name = "qm", mixinStandardHelpOptions = true, versionProvider = VersionInfo.class,
    description = "Quartermaster: hands GPUs, interconnect channels and volumes to workloads, and takes them back.",
    subcommands = CommandLine.HelpCommand.class)
public final class Main implements Runnable {

  @Spec
  private CommandSpec spec;

  @Option(names = "--debug", scope = ScopeType.INHERIT, description = "show stack traces of errors (or set QM_DEBUG=1)")
  private boolean debug;

  public static void main(String[] args) {
    System.exit(execute(commandLine(CliEnvironment.ofProcess()), args));
  }

  /**
   * Runs one command line as {@link #main} does, client flags before the command included ({@code
   * qm --server URL get nodes}); returns the exit code.
   */
  public static int execute(CommandLine commandLine, String... args) {
    return commandLine.execute(GlobalFlags.hoist(args));
  }

  /** The whole command tree, bound to {@code env}; tests run it in-process with their own environment. */
  public static CommandLine commandLine(CliEnvironment env) {
    var main = new Main();
    var cl = new CommandLine(main);
    // One line per command.
    cl.addSubcommand(new UpCommand(env));
    cl.addSubcommand(new ServerCommand(env));
    cl.addSubcommand(new ApplyCommand(env));
    cl.addSubcommand(new GetCommand(env));
    cl.addSubcommand(new DescribeCommand(env));
    cl.addSubcommand(new DeleteCommand(env));
    cl.addSubcommand(new LogsCommand(env));
    cl.addSubcommand(NodeCommand.command(env));
    cl.addSubcommand(TokenCommand.command(env));
    cl.addSubcommand(ConfigCommand.command(env));
    cl.addSubcommand(AgentCommand.command(env));
    cl.addSubcommand(CsiCommand.command(env));
    cl.addSubcommand(new DomainDaemonCommand(env));
    cl.addSubcommand(new VersionCommand());
    cl.addSubcommand(new CompletionCommand());
    cl.setCaseInsensitiveEnumValuesAllowed(true);
    cl.setExecutionExceptionHandler(new ErrorReporter(
        () -> main.debug || env.variable("QM_DEBUG").filter(v -> !v.equals("0")).isPresent()));
    return cl;
  }

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "missing command");
  }
}
