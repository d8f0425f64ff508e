package dev.quartermaster.control.volume;

import dev.quartermaster.api.volume.VolumeClaim;
import java.util.Optional;

/**
 * The one home of a volume claim's transitions, as seen by the controller:
 *
 * <pre>
 *   (grant, {@link AccessRules}) → Taken ──Publish / AttachWithoutCall──→ Taken+attached (Hold)
 *   Taken, holder gone ──(agent: NodeUnpublish, NodeUnstage)──→ NodeDetached
 *   Taken, node fenced or deleted ──NodeDetachOnBehalf──→ NodeDetached
 *   NodeDetached ──Unpublish (ControllerUnpublishVolume) / DetachWithoutCall──→ ControllerDetached
 *     (the call also for a claim never recorded attached: its publish may have succeeded unrecorded;
 *     without it while another claim taken on the same node still holds the attachment:
 *     ControllerUnpublishVolume detaches the volume from the node, not from one claim)
 *   ControllerDetached ──Free──→ removed
 * </pre>
 *
 * Each arrow is persisted in the volume's status before the next call is made, so a controller that
 * dies anywhere resumes from the last persisted step, and every call is one the spec makes
 * idempotent. A node that is merely NotReady keeps its claims: it may still be writing (I5 — never a
 * second writer); only its agent or an operator's fence lets go.
 */
public final class ClaimMachine {
  private ClaimMachine() {}

  /** What the claim's node is, as far as the controller knows. */
  public enum NodeFate {
    /** The agent heartbeats (or has merely gone quiet: it may come back and may still be writing). */
    MayReturn,
    /** Fenced by an operator, or the Node object is gone: nothing on it runs any more. */
    Dead
  }

  /**
   * @param holderLive the claim's task incarnation exists, is not finished and is not being deleted
   * @param publishes the plugin has PUBLISH_UNPUBLISH_VOLUME
   * @param nodeProblem why the node is not live (NotReady since ...), for the wait message
   * @param attachmentShared another claim on the same node is attached and still taken: its process
   *     may still use the volume there
   */
  public static ClaimStep next(VolumeClaim c, boolean holderLive, NodeFate node, boolean publishes,
      Optional<String> nodeProblem, boolean attachmentShared) {
    return switch (c.state()) {
      case Taken -> {
        if (node == NodeFate.Dead) {
          yield new ClaimStep.NodeDetachOnBehalf("node " + c.node() + " was fenced or removed");
        }
        if (!holderLive) {
          yield new ClaimStep.AwaitNode("waiting for " + c.node() + " to unpublish"
              + nodeProblem.map(p -> "; " + p + "; if " + c.node() + " is down, `qm node fence " + c.node() + "` releases it").orElse(""));
        }
        if (c.attached()) {
          yield new ClaimStep.Hold();
        }
        yield publishes ? new ClaimStep.Publish() : new ClaimStep.AttachWithoutCall();
      }
      // Not only an attached claim: a publish whose success was never recorded (the agent released
      // the claim first) left the volume attached all the same, and the call is idempotent.
      case NodeDetached -> publishes && !attachmentShared ? new ClaimStep.Unpublish() : new ClaimStep.DetachWithoutCall();
      case ControllerDetached, Free -> new ClaimStep.Free();
    };
  }
}
