package dev.quartermaster.bench.partitions;

import dev.quartermaster.cli.CliEnvironment;
import dev.quartermaster.cli.commands.LocalServer;
import dev.quartermaster.cli.commands.ServerCommand;
import dev.quartermaster.control.leader.Leadership;
import dev.quartermaster.sim.world.StaleTermCallbacks;
import dev.quartermaster.sim.world.UnfencedWrites;
import java.util.function.UnaryOperator;
import picocli.CommandLine;

/**
 * {@code qm server} with a naive control plane, for the harness to show it catches one in real
 * processes ({@link NaiveVariant}): {@code stale-term} runs the simulation's {@link
 * StaleTermCallbacks}, the leader of issue 43 whose controllers keep an ended term's token (a
 * server paused past its renew deadline but not past its lease wins a new term when it resumes,
 * every write its controllers make is fenced, and the elector, renewing happily, keeps the other
 * server standing by: nothing converges); {@code no-fencing} hands the controllers the registry
 * through the simulation's {@link UnfencedWrites}: each write records its term but carries no
 * token, and no write asks whether the lease was renewed within its deadline (the controllers stop
 * when the elector says so), so a write decided before the term ended lands after it. Run as {@code
 * java -cp … NaiveServer VARIANT <qm server flags>}.
 */
public final class NaiveServer {
  private NaiveServer() {}

  public static void main(String[] args) {
    var variant =
        args.length == 0
            ? java.util.Optional.<NaiveVariant>empty()
            : NaiveVariant.named(args[0]).filter(v -> v.members == NaiveVariant.Members.SERVERS);
    if (variant.isEmpty()) {
      System.err.println("usage: NaiveServer stale-term|no-fencing <qm server flags>");
      System.exit(2);
    }
    UnaryOperator<LocalServer.Options> adjust =
        switch (variant.get()) {
          case STALE_TERM ->
              options ->
                  options.withPlane(plane -> plane.withLeaderCallbacks(StaleTermCallbacks::new));
          case NO_FENCING ->
              options ->
                  options
                      .withControlView(UnfencedWrites::new)
                      .withPlane(
                          plane -> plane.with(b -> b.writeLeadership = l -> Leadership.ALWAYS));
          case STORE_WORD -> throw new IllegalStateException("an agent's variant");
        };
    var rest = java.util.Arrays.copyOfRange(args, 1, args.length);
    var command = new ServerCommand(CliEnvironment.ofProcess(), adjust);
    System.exit(new CommandLine(command).execute(rest));
  }
}
