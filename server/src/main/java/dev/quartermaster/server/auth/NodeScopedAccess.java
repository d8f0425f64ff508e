package dev.quartermaster.server.auth;

import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.meta.Kinds;
import java.util.Locale;
import java.util.Optional;

/**
 * The default rule: admins may do anything; a node agent may read everything and write only its own
 * node's objects (DESIGN.md, "an agent may write only its own node's objects").
 *
 * <p>This is a first cut, the hook the agent work (issue 3) fills in. It knows two kinds of
 * ownership today: the {@code Node} named after the agent, and a {@code DeviceSlice} whose {@code
 * spec.node} is the agent's node. Everything else an agent will legitimately write (task status on
 * its node, per-node prepare state of claims) needs the stored object to decide and is denied until
 * then.
 */
public final class NodeScopedAccess implements AccessRule {

  @Override
  public Optional<String> deny(Principal who, Access access) {
    return switch (who.role()) {
      case Principal.Admin _ -> Optional.empty();
      case Principal.NodeAgent node -> access.verb().writes() ? denyWrite(node.nodeName(), access) : Optional.empty();
    };
  }

  private static Optional<String> denyWrite(String nodeName, Access access) {
    var kind = access.kind();
    var own = (kind.equals(Kinds.NODE) && access.name().filter(nodeName::equals).isPresent())
        || (kind.equals(Kinds.DEVICE_SLICE) && access.object()
            .filter(o -> o instanceof DeviceSlice s && s.spec().node().equals(nodeName)).isPresent());
    if (own) {
      return Optional.empty();
    }
    var what = access.kind().singular() + access.name().map(n -> "/" + n).orElse("");
    return Optional.of("node " + nodeName + " may not " + access.verb().name().toLowerCase(Locale.ROOT)
        + " " + what + ": an agent writes only its own node's objects");
  }
}
