package dev.quartermaster.cli.commands;

import java.nio.file.Path;

/**
 * Where {@code qm up} keeps things under its data directory: the server's store and token at the top,
 * and per node {@code nodes/<node>/root} (the simulated device tree), {@code nodes/<node>/state} (the
 * agent's ledger, CDI specs and task logs).
 */
public record UpLayout(Path dataDir) {
  public static UpLayout of(Path dataDir) {
    return new UpLayout(dataDir);
  }

  public Path nodeDir(String node) {
    return dataDir.resolve("nodes").resolve(node);
  }

  public Path deviceRoot(String node) {
    return nodeDir(node).resolve("root");
  }

  public Path state(String node) {
    return nodeDir(node).resolve("state");
  }

  public Path cdi(String node) {
    return state(node).resolve("cdi");
  }

  public Path taskLog(String node, String task) {
    return dev.quartermaster.agent.NodeAgentConfig.taskLog(state(node), task);
  }

  /** The output of the task's previous attempt on {@code node}. */
  public Path previousTaskLog(String node, String task) {
    return dev.quartermaster.agent.NodeAgentConfig.previousTaskLog(state(node), task);
  }
}
