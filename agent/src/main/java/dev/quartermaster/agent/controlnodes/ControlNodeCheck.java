package dev.quartermaster.agent.controlnodes;

import dev.quartermaster.agent.discovery.ControlNode;
import dev.quartermaster.agent.discovery.NodeProblem;
import dev.quartermaster.agent.discovery.NodeVerifier;
import dev.quartermaster.agent.discovery.Numbering;
import dev.quartermaster.agent.discovery.VerifiedNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks the control nodes under a device root ({@code /} on a real host) <em>now</em>: each
 * required one ({@code nvidiactl}, {@code nvidia-uvm}, {@code nvidia-uvm-tools}) must be a
 * character device with the number {@code /proc/devices} and nvidia-modprobe's minors give; {@code
 * nvidia-modeset} is optional. Every call reads the host's tree afresh (a few stats and one small
 * file), so call it at prepare time rather than trusting an earlier result: a snapshot taken at
 * start-up is how NVIDIA's plugin lost {@code nvidia-uvm}.
 */
public final class ControlNodeCheck {
  private final Path root;

  public ControlNodeCheck(Path root) {
    this.root = root.toAbsolutePath();
  }

  public Path root() {
    return root;
  }

  /** The directory holding the nodes ({@code <root>/dev}). */
  public Path devDir() {
    return root.resolve("dev");
  }

  public ControlNodeStatus check() {
    Numbering numbering;
    try {
      numbering = Numbering.load(root);
    } catch (IOException | IllegalArgumentException e) {
      var problem =
          new NodeProblem(
              root.resolve("proc/devices"),
              NodeProblem.Kind.DriverNotLoaded,
              "cannot read the device numbers under " + root + ": " + e.getMessage());
      return new ControlNodeStatus.Incomplete(List.of(problem), List.of());
    }
    var nodes = new ArrayList<VerifiedNode>();
    var problems = new ArrayList<NodeProblem>();
    var notes = new ArrayList<String>();
    for (var node : ControlNode.values()) {
      var hostPath = devDir().resolve(node.fileName());
      switch (numbering.control(node)) {
        case Numbering.Expected.Unknown u -> {
          var problem =
              new NodeProblem(
                  hostPath,
                  NodeProblem.Kind.DriverNotLoaded,
                  "cannot check " + hostPath + ": " + u.why());
          if (node.required()) {
            problems.add(problem);
          } else {
            notes.add(problem.message());
          }
        }
        case Numbering.Expected.Known k -> {
          switch (NodeVerifier.verify(node.containerPath(), hostPath, k.expectation())) {
            case NodeVerifier.Verdict.Ok ok -> nodes.add(ok.node());
            case NodeVerifier.Verdict.Bad bad when node.required() -> problems.add(bad.problem());
            case NodeVerifier.Verdict.Bad bad ->
                notes.add("optional " + bad.problem().message() + " (left out)");
          }
        }
      }
    }
    return problems.isEmpty()
        ? new ControlNodeStatus.Complete(nodes, notes)
        : new ControlNodeStatus.Incomplete(problems, nodes);
  }
}
