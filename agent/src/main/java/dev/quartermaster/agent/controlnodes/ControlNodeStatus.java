package dev.quartermaster.agent.controlnodes;

import dev.quartermaster.agent.discovery.NodeProblem;
import dev.quartermaster.agent.discovery.VerifiedNode;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The control nodes as one check found them: {@link Complete} (every required node is a character
 * device with the right number; the optional ones that are right are included too) or {@link
 * Incomplete} (each problem names the path and why). This is what {@code DevicesReady} reports.
 */
public sealed interface ControlNodeStatus {

  /** Whether GPU work may be placed and prepared on this node. */
  boolean ready();

  /** For the {@code DevicesReady} condition: a CamelCase reason, empty when ready. */
  String reason();

  /** For people: what is wrong, naming every path; empty when ready. */
  String message();

  /**
   * Every required node is right. {@code nodes}: the nodes a GPU container needs besides its GPU
   * (write each into the claim's CDI spec, with type "c" and its major/minor). {@code notes}:
   * optional nodes that are absent or wrong, and so left out.
   */
  record Complete(List<VerifiedNode> nodes, List<String> notes) implements ControlNodeStatus {
    public Complete {
      nodes = List.copyOf(nodes);
      notes = List.copyOf(notes);
    }

    @Override
    public boolean ready() {
      return true;
    }

    @Override
    public String reason() {
      return "";
    }

    @Override
    public String message() {
      return "";
    }
  }

  /** Some required node is missing or wrong; {@code present}: those that are right. */
  record Incomplete(List<NodeProblem> problems, List<VerifiedNode> present)
      implements ControlNodeStatus {
    public Incomplete {
      if (problems.isEmpty()) {
        throw new IllegalArgumentException("an incomplete status needs at least one problem");
      }
      problems = List.copyOf(problems);
      present = List.copyOf(present);
    }

    @Override
    public boolean ready() {
      return false;
    }

    /**
     * {@code DriverNotLoaded}, {@code ControlNodeMissing} or {@code ControlNodeWrong}, after the
     * first problem.
     */
    @Override
    public String reason() {
      return switch (problems.getFirst().kind()) {
        case DriverNotLoaded -> "DriverNotLoaded";
        case Missing -> "ControlNodeMissing";
        case Wrong -> "ControlNodeWrong";
      };
    }

    /** E.g. {@code missing /dev/nvidia-uvm; missing /dev/nvidia-uvm-tools}. */
    @Override
    public String message() {
      return problems.stream().map(NodeProblem::message).collect(Collectors.joining("; "));
    }
  }
}
