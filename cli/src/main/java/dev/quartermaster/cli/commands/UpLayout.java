package dev.quartermaster.cli.commands;

import java.nio.file.Path;

/**
 * Where {@code qm up} keeps things under its data directory: the server's store and token at the
 * top, and per node {@code nodes/<node>/root} (the simulated device tree), {@code
 * nodes/<node>/state} (the agent's ledger, CDI specs and task logs), {@code nodes/<node>/plugins}
 * (CSI plugin sockets), and {@code csi/hostpath} (the built-in plugin's volumes).
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

  /** Where the node's CSI plugins put their sockets (the agent's {@code --csi-plugin-dir}). */
  public Path plugins(String node) {
    return nodeDir(node).resolve("plugins");
  }

  /**
   * The built-in hostpath plugin's volumes and state, shared by its instances on every node (one
   * storage system).
   */
  public Path hostpathState() {
    return dataDir.resolve("csi").resolve("hostpath");
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
