package dev.quartermaster.api.volume;

import dev.quartermaster.api.volume.VolumeClaim.State;
import dev.quartermaster.api.volume.VolumeClaimEvent.Attached;
import dev.quartermaster.api.volume.VolumeClaimEvent.ControllerReleased;
import dev.quartermaster.api.volume.VolumeClaimEvent.Freed;
import dev.quartermaster.api.volume.VolumeClaimEvent.NodeGone;
import dev.quartermaster.api.volume.VolumeClaimEvent.NodeReleased;
import dev.quartermaster.api.volume.VolumeClaimEvent.ReleaseFailed;
import dev.quartermaster.api.volume.VolumeClaimEvent.Writer;
import dev.quartermaster.api.volume.VolumeClaimMove.Moved;
import dev.quartermaster.api.volume.VolumeClaimMove.Refused;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The one home of a volume claim's transitions: what the volume controller does next for a claim
 * ({@link #next}), and what a done step makes of it ({@link #apply}) — for the controller, the
 * node's agent, and the server and store that judge their writes.
 *
 * <pre>
 *   grant (AccessRules) → Taken ──Publish / AttachWithoutCall: Attached──→ Taken+attached (Hold)
 *   Taken, holder gone ──(agent: NodeUnpublish, NodeUnstage) NodeReleased──→ NodeDetached
 *   Taken, release failing ──(agent) ReleaseFailed──→ Taken, the error said
 *   Taken, node fenced or deleted ──NodeDetachOnBehalf: NodeGone──→ NodeDetached
 *   NodeDetached ──Unpublish (ControllerUnpublishVolume) / DetachWithoutCall: ControllerReleased──→ ControllerDetached
 *     (the call also for a claim never recorded attached: its publish may have succeeded unrecorded;
 *     without it while another claim taken on the same node still holds the attachment:
 *     ControllerUnpublishVolume detaches the volume from the node, not from one claim)
 *   ControllerDetached ──Free: Freed──→ Free (removed from the volume's list)
 * </pre>
 *
 * Each arrow is persisted in the volume's status before the next call is made, so a controller that
 * dies anywhere resumes from the last persisted step, and every call is one the spec makes
 * idempotent. A node that is merely NotReady keeps its claims: it may still be writing (I5 — never
 * a second writer); only its agent or an operator's fence lets go. No state is left but forward: a
 * claim that began letting go is never taken, attached or held again.
 */
public final class VolumeClaimMachine {
  private VolumeClaimMachine() {}

  /** What the claim's node is, as far as the controller knows. */
  public enum NodeFate {
    /**
     * The agent heartbeats (or has merely gone quiet: it may come back and may still be writing).
     */
    MayReturn,
    /** Fenced by an operator, or the Node object is gone: nothing on it runs any more. */
    Dead
  }

  /**
   * A new claim of task incarnation {@code task}/{@code taskUid} on {@code node}, as granted by the
   * access rules.
   */
  public static VolumeClaim grant(String task, String taskUid, String node, VolumeClaim.Mode mode) {
    return new VolumeClaim(task, taskUid, node, mode, State.Taken, false, Map.of());
  }

  /**
   * @param holderLive the claim's task incarnation exists, is not finished and is not being deleted
   * @param publishes the plugin has PUBLISH_UNPUBLISH_VOLUME
   * @param nodeProblem why the node is not live (NotReady since ...), for the wait message
   * @param attachmentShared another claim on the same node is attached and still taken: its process
   *     may still use the volume there
   */
  public static VolumeClaimStep next(
      VolumeClaim c,
      boolean holderLive,
      NodeFate node,
      boolean publishes,
      Optional<String> nodeProblem,
      boolean attachmentShared) {
    return switch (c.state()) {
      case Taken -> {
        if (node == NodeFate.Dead) {
          yield new VolumeClaimStep.NodeDetachOnBehalf(
              "node " + c.node() + " was fenced or removed");
        }
        if (!holderLive) {
          yield new VolumeClaimStep.AwaitNode(
              "waiting for "
                  + c.node()
                  + " to unpublish"
                  + nodeProblem
                      .map(
                          p ->
                              "; "
                                  + p
                                  + "; if "
                                  + c.node()
                                  + " is down, `qm node fence "
                                  + c.node()
                                  + "` releases it")
                      .orElse(""));
        }
        if (c.attached()) {
          yield new VolumeClaimStep.Hold();
        }
        yield publishes ? new VolumeClaimStep.Publish() : new VolumeClaimStep.AttachWithoutCall();
      }
      // Not only an attached claim: a publish whose success was never recorded (the agent released
      // the claim first) left the volume attached all the same, and the call is idempotent.
      case NodeDetached ->
          publishes && !attachmentShared
              ? new VolumeClaimStep.Unpublish()
              : new VolumeClaimStep.DetachWithoutCall();
      case ControllerDetached, Free -> new VolumeClaimStep.Free();
    };
  }

  /**
   * What {@code e} makes of {@code c}: the claim in its next state, or the rule that refuses it. A
   * release error belongs to the state it was said in, so a move to another state drops it; an
   * attachment's context and error stay.
   */
  public static VolumeClaimMove apply(VolumeClaim c, VolumeClaimEvent e) {
    return switch (e) {
      case Attached a ->
          c.state() == State.Taken
              ? moved(c, State.Taken, true, a.publishContext(), c.releaseError())
              : refused(
                  c,
                  e,
                  "only a Taken claim is attached: one that began letting go is never published again");
      case NodeReleased n -> fromTaken(c, e);
      case NodeGone g -> fromTaken(c, e);
      case ReleaseFailed f ->
          c.state() == State.Taken
              ? moved(c, State.Taken, c.attached(), c.publishContext(), f.error())
              : refused(
                  c, e, "a release error is said only on a Taken claim, whose node has not let go");
      case ControllerReleased r ->
          c.state() == State.NodeDetached
              ? moved(c, State.ControllerDetached, c.attached(), c.publishContext(), "")
              : refused(
                  c,
                  e,
                  "the controller detaches only a NodeDetached claim: never from under the node's"
                      + " processes, and only once");
      case Freed f ->
          c.state() == State.ControllerDetached || c.state() == State.Free
              ? moved(c, State.Free, c.attached(), c.publishContext(), "")
              : refused(
                  c,
                  e,
                  "a claim is freed only once the controller detached it: until then it holds the volume"
                      + " from any other writer");
    };
  }

  /**
   * Whether one event that {@code writer} records moves {@code before} to exactly {@code after}:
   * how the server judges what an agent writes of a claim.
   */
  public static boolean movedBy(VolumeClaim before, VolumeClaim after, Writer writer) {
    List<VolumeClaimEvent> events =
        List.of(
            new Attached(after.publishContext()),
            new NodeReleased(),
            new ReleaseFailed(after.releaseError()),
            new NodeGone(),
            new ControllerReleased(),
            new Freed());
    return events.stream()
        .filter(e -> e.writer() == writer)
        .anyMatch(e -> apply(before, e) instanceof Moved m && m.claim().equals(after));
  }

  /** Whether {@code c} may leave its volume's list: the machine frees it. */
  public static boolean mayLeave(VolumeClaim c) {
    return apply(c, new Freed()) instanceof Moved;
  }

  /** The node lets go of its part: only of a Taken claim. */
  private static VolumeClaimMove fromTaken(VolumeClaim c, VolumeClaimEvent e) {
    return c.state() == State.Taken
        ? moved(c, State.NodeDetached, c.attached(), c.publishContext(), "")
        : refused(c, e, "the node lets go only of a Taken claim, once");
  }

  private static VolumeClaimMove moved(
      VolumeClaim c, State s, boolean attached, Map<String, String> context, String releaseError) {
    return new Moved(
        new VolumeClaim(
            c.task(), c.taskUid(), c.node(), c.mode(), s, attached, context, releaseError));
  }

  private static VolumeClaimMove refused(VolumeClaim c, VolumeClaimEvent e, String rule) {
    return new Refused(
        e.getClass().getSimpleName()
            + " of task "
            + c.task()
            + "'s "
            + c.state()
            + " claim on "
            + c.node()
            + ": "
            + rule);
  }
}
