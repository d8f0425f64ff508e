package dev.quartermaster.control.volume;

import dev.quartermaster.api.node.PluginInstance;
import dev.quartermaster.csi.plugin.CsiPlugin;

/**
 * How the control plane reaches a plugin instance's controller service: over its Unix socket in
 * production (the instance must run on the control plane's machine, as every node of {@code qm up}
 * does), the simulated storage system in the simulation. Implementations may cache connections.
 */
@FunctionalInterface
public interface PluginConnector {
  /** Reaches nothing: every call fails UNAVAILABLE (a control plane started without CSI). */
  PluginConnector NONE =
      (node, instance) -> {
        throw new dev.quartermaster.csi.plugin.CsiException(
            dev.quartermaster.csi.plugin.CsiCall.GetPluginInfo,
            dev.quartermaster.csi.plugin.CsiCode.UNAVAILABLE,
            "this control plane has no CSI connector");
      };

  CsiPlugin connect(String node, PluginInstance instance);
}
