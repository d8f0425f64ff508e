package dev.quartermaster.agent.volumes;

import dev.quartermaster.agent.host.NodePublications;
import dev.quartermaster.agent.plugins.NodePlugins;
import java.util.Objects;

/**
 * This node's side of its volumes: its CSI plugins, the node calls made to them, the mounts of the
 * tasks that run here, and the publications the node keeps (a target there that no claim of this
 * node names, a fenced task's, is unpublished too, so that the volume can be handed over at all).
 */
public record NodeVolumes(
    NodePlugins plugins, NodeCalls calls, VolumeMounts mounts, NodePublications publications) {
  public NodeVolumes {
    Objects.requireNonNull(plugins, "plugins");
    Objects.requireNonNull(calls, "calls");
    Objects.requireNonNull(mounts, "mounts");
    Objects.requireNonNull(publications, "publications");
  }
}
