package dev.quartermaster.server;

import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.server.auth.Principal;
import java.util.List;

/**
 * A Node's status is its agent's: the agent registers its node with it, under its own node's token.
 * Anyone else's create (an admin's) carries none, as the other kinds whose status the system writes
 * ({@code StatusOnCreate}): an admin-created Node stored {@code AgentReady=True}, and every reader
 * believed an agent that was never there. Refused with a 422, not stripped, so that the writer
 * learns its status was not taken.
 */
final class NodeStatusOnCreate {
  static final String RULE = "is set by the node's agent; create the node without it";

  private NodeStatusOnCreate() {}

  /** Refuses {@code object}, a Node with a status, unless {@code who} is that node's agent. */
  static void require(Principal who, ApiObject object) {
    if (object instanceof Node n
        && !n.status().equals(NodeStatus.EMPTY)
        && !(who.role() instanceof Principal.NodeAgent a
            && a.nodeName().equals(n.metadata().name()))) {
      throw ApiException.invalid(n.ref(), List.of(new Violation("status", RULE)));
    }
  }
}
