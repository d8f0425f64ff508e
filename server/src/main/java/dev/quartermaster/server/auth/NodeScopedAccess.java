package dev.quartermaster.server.auth;

import dev.quartermaster.api.claim.AgentFinalizer;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.event.Event;
import dev.quartermaster.api.event.InvolvedObject;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.api.volume.VolumeClaimEvent.Writer;
import dev.quartermaster.api.volume.VolumeClaimMachine;
import dev.quartermaster.api.workload.Task;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Admins may do anything; a node agent may read everything and write only what its own node owns
 * (DESIGN.md), judged on the object <em>as stored</em> as well as on the request body, so an agent
 * cannot take another node's object over by naming itself in it:
 *
 * <ul>
 *   <li>its {@code Node} (named after it): create with an empty spec, write its status — never its
 *       spec or labels (cordon and fence are the operator's);
 *   <li>a {@code DeviceSlice} whose stored and new {@code spec.node} are its own;
 *   <li>a {@code ResourceClaim} that concerns it (allocated there, prepared there, or carrying its
 *       finalizer): in the status only {@code prepare[<node>]}, in the metadata only its own
 *       finalizer {@code quartermaster.dev/agent-<node>};
 *   <li>the status of a {@code Task} stored with {@code spec.node} its own;
 *   <li>in a {@code Volume}'s status, only its own node's {@code Taken} claims: to {@code
 *       NodeDetached}, or their {@code releaseError};
 *   <li>an {@code Event} whose stored and new {@code spec.source} is {@code agent/<node>}, about an
 *       object of its node as stored now: its {@code Node}, a {@code Task} placed there, a claim
 *       that concerns it (as above), or a {@code Volume} with a claim of its node; and about the
 *       same object as the stored event (an agent says what happened on its node, not elsewhere).
 * </ul>
 *
 * Nothing else: no deletes, no workloads, classes, domains or allocation records. A refusal is a
 * 403 naming the rule. {@code ObjectRoutes} reads the stored object at the revision the update
 * names, so the judged object is the one the store's compare-and-set replaces.
 */
public final class NodeScopedAccess implements AccessRule {
  @Override
  public Optional<String> deny(Principal who, Access access) {
    return switch (who.role()) {
      case Principal.Admin _ -> Optional.empty();
      case Principal.NodeAgent node ->
          access.verb().writes() ? denyWrite(node.nodeName(), access) : Optional.empty();
    };
  }

  private static Optional<String> denyWrite(String n, Access a) {
    var verb = a.verb();
    var body = a.object();
    var stored = a.stored();
    if (verb == Access.Verb.DELETE) {
      return refuse(n, a, "an agent deletes nothing");
    }
    var kind = a.kind();
    if (kind.equals(Kinds.NODE)) {
      if (!a.name().orElse("").equals(n)) {
        return refuse(n, a, "an agent writes only its own Node");
      }
      return switch (verb) {
        case CREATE ->
            body.filter(o -> ((Node) o).spec().equals(NodeSpec.EMPTY)).isPresent()
                ? ok()
                : refuse(
                    n,
                    a,
                    "an agent creates its Node with an empty spec (cordon and fence are the operator's)");
        case UPDATE_STATUS -> ok();
        default ->
            refuse(
                n,
                a,
                "an agent writes only its Node's status (spec and labels are the operator's)");
      };
    }
    if (kind.equals(Kinds.DEVICE_SLICE)
        && (verb == Access.Verb.CREATE || verb == Access.Verb.UPDATE)) {
      boolean mine =
          body.filter(o -> ((DeviceSlice) o).spec().node().equals(n)).isPresent()
              && stored.map(o -> ((DeviceSlice) o).spec().node().equals(n)).orElse(true);
      return mine
          ? ok()
          : refuse(
              n, a, "an agent writes only DeviceSlices of its own node (stored and new spec.node)");
    }
    if (kind.equals(Kinds.RESOURCE_CLAIM) && stored.isPresent() && body.isPresent()) {
      var was = (ResourceClaim) stored.get();
      var now = (ResourceClaim) body.get();
      if (!concerns(was, n)) {
        return refuse(
            n,
            a,
            "an agent writes only claims allocated to, prepared on, or finalized by its node");
      }
      if (verb == Access.Verb.UPDATE_STATUS) {
        return onlyOwnPrepareState(was.status(), now.status(), n)
            ? ok()
            : refuse(n, a, "an agent writes only status.prepare[" + n + "] of a claim");
      }
      if (verb == Access.Verb.UPDATE) {
        return onlyOwnFinalizer(was, now, n)
            ? ok()
            : refuse(
                n,
                a,
                "an agent changes only its own finalizer "
                    + new AgentFinalizer(n).name()
                    + " of a claim");
      }
    }
    if (kind.equals(Kinds.TASK) && verb == Access.Verb.UPDATE_STATUS && stored.isPresent()) {
      return ((Task) stored.get()).spec().node().equals(Optional.of(n))
          ? ok()
          : refuse(n, a, "an agent writes the status only of tasks on its node");
    }
    if (kind.equals(Kinds.EVENT) && (verb == Access.Verb.CREATE || verb == Access.Verb.UPDATE)) {
      var source = "agent/" + n;
      boolean mine =
          body.filter(o -> ((Event) o).spec().source().equals(source)).isPresent()
              && stored.map(o -> ((Event) o).spec().source().equals(source)).orElse(true);
      if (!mine) {
        return refuse(
            n,
            a,
            "an agent writes only events whose spec.source is " + source + " (stored and new)");
      }
      var about = ((Event) body.orElseThrow()).spec().involved();
      boolean same = stored.map(o -> ((Event) o).spec().involved().equals(about)).orElse(true);
      return same && a.involved().filter(o -> ofNode(o, about, n)).isPresent()
          ? ok()
          : refuse(
              n,
              a,
              "an agent writes only events about its own node's objects (its Node, a Task placed"
                  + " there, a claim that concerns it, a Volume with a claim of its node); "
                  + about
                  + (a.involved().isEmpty() ? " does not exist" : " is not one of them"));
    }
    if (kind.equals(Kinds.VOLUME)
        && verb == Access.Verb.UPDATE_STATUS
        && stored.isPresent()
        && body.isPresent()) {
      var was = ((Volume) stored.get()).status();
      var now = ((Volume) body.get()).status();
      return was.withClaims(now.claims()).equals(now)
              && onlyOwnDetached(was.claims(), now.claims(), n)
          ? ok()
          : refuse(
              n,
              a,
              "in a volume's status an agent only marks its own node's claims released (Taken -> "
                  + "NodeDetached) or says why their release fails (releaseError); it adds, removes and changes no claim "
                  + "otherwise (the volume controller grants them)");
    }
    return refuse(n, a, "an agent writes only its own node's objects");
  }

  /** Whether {@code o}, stored as what an event says it is about, is of node {@code n}. */
  static boolean ofNode(ApiObject o, InvolvedObject about, String n) {
    if (!o.kind().name().equals(about.kind()) || !o.metadata().name().equals(about.name())) {
      return false;
    }
    return switch (o) {
      case Node node -> node.metadata().name().equals(n);
      case Task task -> task.spec().node().equals(Optional.of(n));
      case ResourceClaim claim -> concerns(claim, n);
      case Volume volume -> volume.status().claims().stream().anyMatch(c -> c.node().equals(n));
      default -> false;
    };
  }

  private static boolean concerns(ResourceClaim c, String n) {
    return c.status().allocation().map(x -> x.node().equals(n)).orElse(false)
        || c.status().prepare().containsKey(n)
        || c.metadata().finalizers().contains(new AgentFinalizer(n).name());
  }

  /**
   * Whether {@code now} is {@code was} with some of node {@code n}'s claims moved by an agent's
   * event of the {@link VolumeClaimMachine} ({@code Taken → NodeDetached} after it unpublished and
   * unstaged them, or their release error said), and nothing else: the volume-status writes an
   * agent makes. A claim it could add would be a writer the controller never granted.
   */
  private static boolean onlyOwnDetached(List<VolumeClaim> was, List<VolumeClaim> now, String n) {
    if (was.size() != now.size()) {
      return false;
    }
    for (int i = 0; i < was.size(); i++) {
      var before = was.get(i);
      var after = now.get(i);
      boolean agentsMove =
          before.node().equals(n) && VolumeClaimMachine.movedBy(before, after, Writer.Agent);
      if (!after.equals(before) && !agentsMove) {
        return false;
      }
    }
    return true;
  }

  private static boolean onlyOwnPrepareState(
      ResourceClaimStatus was, ResourceClaimStatus now, String n) {
    var prepare = new HashMap<>(was.prepare());
    prepare.remove(n);
    Optional.ofNullable(now.prepare().get(n)).ifPresent(s -> prepare.put(n, s));
    return new ResourceClaimStatus(was.allocation(), was.reservedFor(), prepare, was.conditions())
        .equals(now);
  }

  private static boolean onlyOwnFinalizer(ResourceClaim was, ResourceClaim now, String n) {
    var w = was.metadata();
    var m = now.metadata();
    Set<String> changed = new HashSet<>(w.finalizers());
    changed.addAll(m.finalizers());
    var kept = new HashSet<>(w.finalizers());
    kept.retainAll(m.finalizers());
    changed.removeAll(kept);
    return was.spec().equals(now.spec())
        && w.labels().equals(m.labels())
        && w.owner().equals(m.owner())
        && changed.stream().allMatch(f -> f.equals(new AgentFinalizer(n).name()));
  }

  private static Optional<String> ok() {
    return Optional.empty();
  }

  private static Optional<String> refuse(String node, Access a, String rule) {
    Kind<?> kind = a.kind();
    var what = kind.singular() + a.name().map(x -> "/" + x).orElse("");
    return Optional.of(
        "node "
            + node
            + " may not "
            + a.verb().name().toLowerCase(Locale.ROOT)
            + " "
            + what
            + ": "
            + rule);
  }
}
