package dev.quartermaster.bench.partitions;

import dev.quartermaster.cli.CliEnvironment;
import dev.quartermaster.cli.commands.ServerCommand;
import dev.quartermaster.sim.world.StaleTermCallbacks;
import picocli.CommandLine;

/**
 * {@code qm server} with a naive control plane, for the harness to show it catches one in real
 * processes: the simulation's {@link StaleTermCallbacks}, the leader of issue 43 whose controllers
 * keep an ended term's token. A server paused past its renew deadline (10 s of a 15 s lease) but
 * not past the lease wins a new term when it resumes; its controllers are not told, every write
 * they make is fenced, and the elector, renewing happily, keeps the other server standing by:
 * nothing converges. Run as {@code java -cp … NaiveServer stale-term <qm server flags>}.
 */
public final class NaiveServer {
  private NaiveServer() {}

  public static void main(String[] args) {
    if (args.length == 0 || !args[0].equals("stale-term")) {
      System.err.println("usage: NaiveServer stale-term <qm server flags>");
      System.exit(2);
    }
    var rest = java.util.Arrays.copyOfRange(args, 1, args.length);
    var command =
        new ServerCommand(
            CliEnvironment.ofProcess(),
            options ->
                options.withPlane(plane -> plane.withLeaderCallbacks(StaleTermCallbacks::new)));
    System.exit(new CommandLine(command).execute(rest));
  }
}
