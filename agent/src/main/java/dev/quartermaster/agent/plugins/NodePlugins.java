package dev.quartermaster.agent.plugins;

import java.util.Optional;

/** The node's CSI plugins by name, as last probed. */
public interface NodePlugins {

  /**
   * The healthy instance of plugin {@code name} with the Node role here, if any (lowest endpoint
   * first).
   */
  Optional<NodePlugin> nodePlugin(String name);

  /** Why {@link #nodePlugin} is empty for {@code name}, for a task's status. */
  String whyNot(String name);

  /**
   * A call found a plugin unreachable or slow: look at the plugins again without waiting for the
   * period.
   */
  void probeSoon();
}
