package dev.quartermaster.bench.partitions;

import dev.quartermaster.agent.tasks.NaiveClaimRelease;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.cli.CliEnvironment;
import dev.quartermaster.cli.commands.AgentCommand;
import picocli.CommandLine;

/**
 * {@code qm agent} with a naive claim release, for the harness to show it catches one in real
 * processes ({@link NaiveVariant#STORE_WORD}): the agent test code's {@link
 * NaiveClaimRelease#onTheStoresWord}, which releases a claim as soon as the store says it or its
 * task is going (Nomad #26831), while the task's process may still run — its tasks read live from
 * the API. Run as {@code java -cp … NaiveAgent store-word <qm agent flags>}.
 */
public final class NaiveAgent {
  private NaiveAgent() {}

  public static void main(String[] args) {
    if (args.length == 0
        || NaiveVariant.named(args[0]).filter(v -> v == NaiveVariant.STORE_WORD).isEmpty()) {
      System.err.println("usage: NaiveAgent store-word <qm agent flags>");
      System.exit(2);
    }
    var rest = java.util.Arrays.copyOfRange(args, 1, args.length);
    var command =
        new AgentCommand(
            CliEnvironment.ofProcess(),
            config -> {
              var node = config.nodeName();
              var api = config.api();
              return config.with(
                  b ->
                      b.releaseView =
                          real ->
                              NaiveClaimRelease.onTheStoresWord(
                                  node, name -> api.get(Kinds.TASK, name)));
            });
    System.exit(new CommandLine(command).execute(rest));
  }
}
