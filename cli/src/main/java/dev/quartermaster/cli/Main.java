package dev.quartermaster.cli;

import dev.quartermaster.cli.commands.AgentCommand;
import dev.quartermaster.cli.commands.ApplyCommand;
import dev.quartermaster.cli.commands.CompletionCommand;
import dev.quartermaster.cli.commands.ConfigCommand;
import dev.quartermaster.cli.commands.CsiCommand;
import dev.quartermaster.cli.commands.DeleteCommand;
import dev.quartermaster.cli.commands.DescribeCommand;
import dev.quartermaster.cli.commands.DomainDaemonCommand;
import dev.quartermaster.cli.commands.GetCommand;
import dev.quartermaster.cli.commands.KubeletPluginCommand;
import dev.quartermaster.cli.commands.LogsCommand;
import dev.quartermaster.cli.commands.NodeCommand;
import dev.quartermaster.cli.commands.ScaleCommand;
import dev.quartermaster.cli.commands.ServerCommand;
import dev.quartermaster.cli.commands.TokenCommand;
import dev.quartermaster.cli.commands.UpCommand;
import dev.quartermaster.cli.commands.VersionCommand;
import dev.quartermaster.cli.fast.FastGet;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SequencedMap;
import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * {@code qm}: the command line. Exit codes: 0 success; 1 an error, reported as one line {@code
 * error: <reason>} on stderr (plus indented details where there are several); 2 a usage error.
 */
@Command(
    name = "qm",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description =
        "Quartermaster: hands GPUs, interconnect channels and volumes to workloads, and takes them back.",
    footer = {
      "",
      "Client options, for every command that talks to a cluster:",
      "  --server URL[,URL...]  API server(s); else $QM_SERVER, else the config file",
      "  --token-file FILE      bearer token; else $QM_TOKEN_FILE, else the config file",
      "  --ca-file FILE         CA for https; else $QM_CA_FILE, else the config file",
      "  --context NAME         a cluster of the config file other than the current",
      "qm config list shows the clusters qm knows; qm COMMAND --help says more."
    },
    subcommands = CommandLine.HelpCommand.class)
public final class Main implements Runnable {

  @Spec private CommandSpec spec;

  @Option(
      names = "--debug",
      scope = ScopeType.INHERIT,
      description = "show stack traces of errors (or set QM_DEBUG=1)")
  private boolean debug;

  public static void main(String[] args) {
    nameSelectorProvider();
    var line = Invocation.read(args);
    var env = CliEnvironment.ofProcess();
    var fast = FastGet.parse(line);
    if (fast.isPresent()) {
      var out = new PrintWriter(new OutputStreamWriter(System.out, System.out.charset()));
      var err = new PrintWriter(new OutputStreamWriter(System.err, System.err.charset()));
      int exit = fast.get().run(env, out, err);
      if (exit != 0) {
        out.flush();
        err.flush();
        end(exit);
      }
      // A success ends by returning: System.exit logs the exit through the platform logger, which
      // here
      // is SLF4J's bridge, and starting logging would cost the listing a fifth of its time. The
      // fast
      // path starts no thread that could keep the JVM alive.
      return;
    }
    var tree = commandLine(env, line);
    int exit = tree.execute(line.forTree());
    if (line.command().filter(RUNS_UNTIL_STOPPED::contains).isPresent()) {
      System.exit(exit); // their shutdown hooks stop what they started
    }
    tree.getOut().flush();
    tree.getErr().flush();
    end(exit);
  }

  /**
   * Runs a client command line (not one that runs until stopped) as {@link #main} does, bound to
   * {@code env} and writing to {@code out} and {@code err}; returns the exit code. The warm client
   * runs the launcher's commands through this.
   */
  public static int runClient(
      Invocation line, CliEnvironment env, PrintWriter out, PrintWriter err) {
    var fast = FastGet.parse(line);
    if (fast.isPresent()) {
      return fast.get().run(env, out, err);
    }
    var tree = commandLine(env, line);
    tree.setOut(out);
    tree.setErr(err);
    return tree.execute(line.forTree());
  }

  /** Commands that run until stopped: they end through System.exit, which runs their hooks. */
  private static final java.util.Set<String> RUNS_UNTIL_STOPPED =
      java.util.Set.of("up", "server", "agent", "csi", "kubelet-plugin", "domain-daemon");

  /**
   * Ends a client command: its output is written and flushed, and it started nothing that must
   * stop. {@link System#exit} would first log the exit through the platform logger, which is
   * SLF4J's bridge here: starting logging for that cost an error a quarter of a second.
   */
  private static void end(int exit) {
    System.out.flush();
    System.err.flush();
    Runtime.getRuntime().halt(exit);
  }

  /**
   * Names the platform's selector provider, which every socket needs, unless the user named one.
   * The JDK otherwise asks {@link java.util.ServiceLoader} for one, which opens and indexes the
   * whole jar (30,000 entries): a fifth of a listing's time, when nothing else needed the jar.
   * {@link SelectorProviders} says which class that is; its test fails when a JDK changes it.
   */
  public static void nameSelectorProvider() {
    if (System.getProperty(SelectorProviders.PROPERTY) == null) {
      SelectorProviders.platformDefault(System.getProperty("os.name", ""))
          .ifPresent(name -> System.setProperty(SelectorProviders.PROPERTY, name));
    }
  }

  /**
   * Runs one command line as {@link #main} does, client flags before the command included ({@code
   * qm --server URL get nodes}); returns the exit code.
   */
  public static int execute(CommandLine commandLine, String... args) {
    return commandLine.execute(Invocation.read(args).forTree());
  }

  /**
   * Every top-level command by its name, in the order help lists them. Picocli reads each command's
   * annotations by reflection when it is added (a quarter of a second for all of them), so a
   * process adds only the one it runs ({@link #commandLine(CliEnvironment, String...)}). Lambdas,
   * not method references: a reference links (loads and verifies) its class when this map is made,
   * a lambda only when it runs, so a command loads no other command's classes.
   */
  static SequencedMap<String, Function<CliEnvironment, Object>> commands() {
    var all = new LinkedHashMap<String, Function<CliEnvironment, Object>>();
    all.put("up", env -> new UpCommand(env));
    all.put("server", env -> new ServerCommand(env));
    all.put("apply", env -> new ApplyCommand(env));
    all.put("get", env -> new GetCommand(env));
    all.put("describe", env -> new DescribeCommand(env));
    all.put("delete", env -> new DeleteCommand(env));
    all.put("scale", env -> new ScaleCommand(env));
    all.put("logs", env -> new LogsCommand(env));
    all.put("node", env -> NodeCommand.command(env));
    all.put("token", env -> TokenCommand.command(env));
    all.put("config", env -> ConfigCommand.command(env));
    all.put("agent", env -> AgentCommand.command(env));
    all.put("csi", env -> CsiCommand.command(env));
    all.put("kubelet-plugin", env -> new KubeletPluginCommand(env));
    all.put("domain-daemon", env -> new DomainDaemonCommand(env));
    all.put("version", env -> new VersionCommand());
    all.put("completion", env -> new CompletionCommand());
    return all;
  }

  /**
   * The whole command tree, bound to {@code env}; tests run it in-process with their own
   * environment.
   */
  public static CommandLine commandLine(CliEnvironment env) {
    return build(env, commands());
  }

  /**
   * The tree {@code line} needs: only the command it names when it names one; the whole tree for
   * help, completion, no command or an unknown one (so picocli lists them all or suggests the
   * nearest).
   */
  public static CommandLine commandLine(CliEnvironment env, Invocation line) {
    var all = commands();
    var command = line.command().filter(all::containsKey).filter(c -> !c.equals("completion"));
    if (command.isEmpty()) {
      return build(env, all);
    }
    return build(env, Map.of(command.get(), all.get(command.get())));
  }

  private static CommandLine build(
      CliEnvironment env, Map<String, Function<CliEnvironment, Object>> commands) {
    var main = new Main();
    var cl = new CommandLine(main);
    commands
        .values()
        .forEach(
            command -> {
              var made = command.apply(env);
              if (made instanceof CommandLine line) {
                cl.addSubcommand(line);
              } else {
                cl.addSubcommand(made);
              }
            });
    cl.setCaseInsensitiveEnumValuesAllowed(true);
    cl.setParameterExceptionHandler(new UsageErrors(cl));
    cl.setExecutionExceptionHandler(
        new ErrorReporter(
            () -> main.debug || env.variable("QM_DEBUG").filter(v -> !v.equals("0")).isPresent()));
    return cl;
  }

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "missing command");
  }
}
