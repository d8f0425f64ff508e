package dev.quartermaster.cli.nodes;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.cli.CliException;
import java.util.function.UnaryOperator;

/**
 * An operator's change to a Node (cordon, fence, drain's mark): read-modify-write of the whole
 * object, compare-and-set on its revision, so what others set meanwhile (labels, the agent's status)
 * is kept; a lost race reads again, a few times.
 */
public final class NodeEdit {
  private static final int ATTEMPTS = 10;

  private NodeEdit() {}

  /** Applies {@code edit} to node {@code name}; false if it changed nothing (already so). */
  public static boolean apply(ApiClient api, String name, UnaryOperator<Node> edit) {
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      var node = api.get(Kinds.NODE, name).orElseThrow(() -> new CliException("node/" + name + " not found"));
      var next = edit.apply(node);
      if (next.equals(node)) {
        return false;
      }
      try {
        api.update(next);
        return true;
      } catch (ApiException e) {
        if (!e.is(Reason.Conflict)) {
          throw e;
        }
      }
    }
    throw new CliException("node/" + name + " kept changing; try again");
  }
}
