package dev.quartermaster.agent.runtime;

import dev.quartermaster.agent.discovery.ControlNode;
import dev.quartermaster.agent.discovery.NodeStat;
import dev.quartermaster.agent.discovery.VerifiedNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The incident's behaviour, kept in test code to show what ours prevents (modelled on the behaviour
 * described in reference/nvidia-device-plugin.md 2.2 and 2.4, not on NVIDIA's code): it looks at
 * the control nodes <em>once</em>, at start-up, and silently skips any that is missing, so every
 * spec it writes afterwards lacks that node. The legacy runtime hook, in turn, bind-mounts whatever
 * device nodes exist when a container is created, without a cgroup rule.
 */
final class NaiveDevicePlugin {
  private final List<VerifiedNode> controlNodes;

  private NaiveDevicePlugin(List<VerifiedNode> controlNodes) {
    this.controlNodes = List.copyOf(controlNodes);
  }

  /**
   * The one look: what exists now, with whatever number it has; missing nodes are skipped, no log.
   */
  static NaiveDevicePlugin startUp(Path devDir) {
    var nodes = new ArrayList<VerifiedNode>();
    for (var node : ControlNode.values()) {
      var path = devDir.resolve(node.fileName());
      if (NodeStat.of(path) instanceof NodeStat.CharDevice c) {
        nodes.add(new VerifiedNode(node.containerPath(), path, c.number()));
      }
    }
    return new NaiveDevicePlugin(nodes);
  }

  /** The control nodes its specs list, forever: the start-up snapshot. */
  List<VerifiedNode> controlNodes() {
    return controlNodes;
  }

  /**
   * The legacy hook: bind-mount every NVIDIA node present at container creation (no cgroup rule).
   */
  static List<Mount> hookMounts(Path devDir) throws IOException {
    try (var list = Files.list(devDir)) {
      return list.filter(p -> p.getFileName().toString().startsWith("nvidia"))
          .sorted()
          .map(p -> new Mount(p, "/dev/" + p.getFileName(), false))
          .toList();
    }
  }
}
