package dev.quartermaster.agent.plugins;

import dev.quartermaster.api.node.PluginInstance;
import dev.quartermaster.csi.plugin.Capability;
import dev.quartermaster.csi.plugin.CsiPlugin;
import dev.quartermaster.csi.plugin.PluginInfo;

/** A healthy plugin instance on this node that serves the node service, with its client. */
public record NodePlugin(PluginInstance instance, PluginInfo info, CsiPlugin client) {

  /** Whether NodeStage must come before NodePublish (and NodeUnstage after NodeUnpublish). */
  public boolean stages() {
    return info.has(Capability.StageUnstageVolume);
  }
}
