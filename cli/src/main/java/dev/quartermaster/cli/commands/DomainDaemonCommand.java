package dev.quartermaster.cli.commands;

import dev.quartermaster.agent.domaind.DomainDaemonServer;
import dev.quartermaster.api.validation.Names;
import dev.quartermaster.cli.CliEnvironment;
import dev.quartermaster.cli.CliException;
import dev.quartermaster.cli.Main;
import dev.quartermaster.cli.VersionInfo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code qm domain-daemon}: one compute domain's daemon on one node, a stand-in for NVIDIA's IMEX
 * daemon. The agent starts it while its ledger wants the node in the domain, checks its readiness
 * on its socket, restarts it if it dies, and stops it when no claim needs the domain any more.
 */
@Command(
    name = "domain-daemon",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description =
        "Run a compute domain's daemon on this node (the agent starts and supervises it).")
public final class DomainDaemonCommand implements Callable<Integer> {
  private final CliEnvironment env;

  @Spec private CommandSpec spec;

  @Option(
      names = "--domain",
      required = true,
      paramLabel = "NAME",
      description = "the compute domain")
  private String domain;

  @Option(names = "--node", required = true, paramLabel = "NAME", description = "this node")
  private String node;

  @Option(
      names = "--socket",
      required = true,
      paramLabel = "PATH",
      description = "the Unix socket to answer readiness checks on")
  private String socket;

  @Option(
      names = "--startup",
      paramLabel = "DURATION",
      defaultValue = "1s",
      converter = DurationConverter.class,
      description =
          "how long it takes to become ready, as the IMEX daemon takes to reach its peers (default: ${DEFAULT-VALUE})")
  private Duration startup;

  public DomainDaemonCommand(CliEnvironment env) {
    this.env = env;
  }

  /**
   * The command the agent on {@code node} starts a domain's daemon with: this same Java and class
   * path, a small heap, and {@code {domain}} and {@code {socket}} for the agent to fill in.
   */
  public static List<String> launcher(String node) {
    var java =
        ProcessHandle.current()
            .info()
            .command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    var command =
        new ArrayList<>(
            List.of(
                java,
                "-Xmx32m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Xlog:disable",
                "-Xlog:all=warning:stderr",
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName(),
                "domain-daemon",
                "--domain",
                "{domain}",
                "--node",
                node,
                "--socket",
                "{socket}"));
    return List.copyOf(command);
  }

  @Override
  public Integer call() throws Exception {
    if (!Names.isDnsLabel(domain)) {
      throw new CliException("--domain: " + Names.DNS_LABEL_RULE + ", got '" + domain + "'");
    }
    if (startup.isNegative()) {
      throw new CliException("--startup: must not be negative, got " + startup);
    }
    var server = DomainDaemonServer.start(domain, node, env.resolve(socket), startup);
    var stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    server.close();
                  } catch (java.io.IOException e) {
                    System.err.println("error: closing the daemon's socket: " + e.getMessage());
                  }
                  stopped.countDown();
                },
                "qm-domain-daemon-stop"));
    var out = spec.commandLine().getOut();
    out.println(
        "domain daemon for "
            + domain
            + " on node "
            + node
            + ": pid "
            + ProcessHandle.current().pid()
            + ", answering on "
            + env.resolve(socket)
            + ", ready in "
            + startup.toMillis()
            + " ms");
    out.flush();
    stopped.await();
    return 0;
  }
}
