package dev.quartermaster.agent.discovery;

import java.nio.file.Path;

/**
 * Checks one device node on the host, now, against what it must be: a character device with the
 * expected number (as nvidia-modprobe's {@code get_file_state_helper} does with {@code stat}).
 */
public final class NodeVerifier {
  private NodeVerifier() {}

  /** The outcome for one path: usable, or a problem naming the path. */
  public sealed interface Verdict {
    record Ok(VerifiedNode node) implements Verdict {}

    record Bad(NodeProblem problem) implements Verdict {}
  }

  /**
   * Verifies {@code hostPath} (seen as {@code containerPath} inside containers) against {@code
   * expected}.
   */
  public static Verdict verify(String containerPath, Path hostPath, NodeExpectation expected) {
    var ok = new Verdict.Ok(new VerifiedNode(containerPath, hostPath, expected.number()));
    var wanted = "a character device " + expected.number();
    return switch (NodeStat.of(hostPath)) {
      case NodeStat.Missing m -> bad(hostPath, NodeProblem.Kind.Missing, "missing " + hostPath);
      case NodeStat.CharDevice c when c.number().equals(expected.number()) -> ok;
      case NodeStat.CharDevice c ->
          bad(
              hostPath,
              NodeProblem.Kind.Wrong,
              hostPath + " is a character device " + c.number() + ", expected " + wanted);
      case NodeStat.NotCharDevice n
          when expected.regularFileAccepted() && n.kind().equals("a regular file") ->
          ok;
      case NodeStat.NotCharDevice n ->
          bad(
              hostPath,
              NodeProblem.Kind.Wrong,
              hostPath + " is " + n.kind() + ", expected " + wanted);
    };
  }

  private static Verdict bad(Path path, NodeProblem.Kind kind, String message) {
    return new Verdict.Bad(new NodeProblem(path, kind, message));
  }
}
