package dev.quartermaster.api.volume;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.volume.VolumeClaim.Mode;
import dev.quartermaster.api.volume.VolumeClaim.State;
import dev.quartermaster.api.volume.VolumeClaimMachine.NodeFate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@link VolumeClaimMachine#next}: the controller's step for a claim, over every combination of
 * what it depends on, with the three rules that guard a real bug each held against a naive decider
 * kept here.
 */
class VolumeClaimMachineNextTest {

  /** What {@link VolumeClaimMachine#next} decides from. */
  record Situation(
      State state,
      boolean attached,
      boolean holderLive,
      NodeFate node,
      boolean publishes,
      boolean shared) {
    VolumeClaim claim() {
      return new VolumeClaim("train-0", "uid-1", "node-3", Mode.Write, state, attached, Map.of());
    }
  }

  @FunctionalInterface
  interface Decider {
    VolumeClaimStep next(Situation s);
  }

  private static final Decider REAL =
      s ->
          VolumeClaimMachine.next(
              s.claim(), s.holderLive(), s.node(), s.publishes(), Optional.empty(), s.shared());

  private static List<Situation> all() {
    var out = new ArrayList<Situation>();
    for (var state : State.values()) {
      for (boolean attached : List.of(false, true)) {
        for (boolean live : List.of(false, true)) {
          for (var node : NodeFate.values()) {
            for (boolean publishes : List.of(false, true)) {
              for (boolean shared : List.of(false, true)) {
                out.add(new Situation(state, attached, live, node, publishes, shared));
              }
            }
          }
        }
      }
    }
    return out;
  }

  private static Situation taken(boolean attached, boolean live, NodeFate node, boolean publishes) {
    return new Situation(State.Taken, attached, live, node, publishes, false);
  }

  @Test
  void stepByCase() {
    // A live holder on a node that may return: held once attached, else attached (by a call if the
    // plugin publishes).
    assertThat(REAL.next(taken(true, true, NodeFate.MayReturn, true)))
        .isInstanceOf(VolumeClaimStep.Hold.class);
    assertThat(REAL.next(taken(false, true, NodeFate.MayReturn, true)))
        .isInstanceOf(VolumeClaimStep.Publish.class);
    assertThat(REAL.next(taken(false, true, NodeFate.MayReturn, false)))
        .isInstanceOf(VolumeClaimStep.AttachWithoutCall.class);
    // The holder is gone: the node's agent lets go, however long that takes.
    assertThat(REAL.next(taken(true, false, NodeFate.MayReturn, true)))
        .isInstanceOf(VolumeClaimStep.AwaitNode.class);
    // A fenced or removed node: let go on its behalf, live holder or not.
    assertThat(REAL.next(taken(true, true, NodeFate.Dead, true)))
        .isInstanceOf(VolumeClaimStep.NodeDetachOnBehalf.class);
    assertThat(
            REAL.next(
                new Situation(State.NodeDetached, true, false, NodeFate.MayReturn, true, false)))
        .isInstanceOf(VolumeClaimStep.Unpublish.class);
    assertThat(
            REAL.next(
                new Situation(State.NodeDetached, true, false, NodeFate.MayReturn, false, false)))
        .isInstanceOf(VolumeClaimStep.DetachWithoutCall.class);
    assertThat(
            REAL.next(
                new Situation(
                    State.ControllerDetached, true, false, NodeFate.MayReturn, true, false)))
        .isInstanceOf(VolumeClaimStep.Free.class);
    assertThat(REAL.next(new Situation(State.Free, false, false, NodeFate.Dead, false, false)))
        .isInstanceOf(VolumeClaimStep.Free.class);
  }

  @Test
  void theWaitSaysWhyAndHowToFenceANodeThatIsDown() {
    var quiet =
        VolumeClaimMachine.next(
            taken(true, false, NodeFate.MayReturn, true).claim(),
            false,
            NodeFate.MayReturn,
            true,
            Optional.of("node node-3 NotReady since 2026-03-01T12:04:00Z"),
            false);
    assertThat(quiet)
        .isEqualTo(
            new VolumeClaimStep.AwaitNode(
                "waiting for node-3 to unpublish; node node-3 NotReady"
                    + " since 2026-03-01T12:04:00Z; if node-3 is down, `qm node fence node-3` releases it"));
    assertThat(
            VolumeClaimMachine.next(
                taken(true, false, NodeFate.MayReturn, true).claim(),
                false,
                NodeFate.MayReturn,
                true,
                Optional.empty(),
                false))
        .isEqualTo(new VolumeClaimStep.AwaitNode("waiting for node-3 to unpublish"));
  }

  /** The broken promises of {@code d}, over every situation. */
  private static List<String> broken(Decider d) {
    var out = new ArrayList<String>();
    for (var s : all()) {
      var step = d.next(s);
      // I5: a node that is merely quiet may still be writing; only its agent or a fence lets go.
      if (s.state() == State.Taken
          && s.node() == NodeFate.MayReturn
          && !(step instanceof VolumeClaimStep.Hold
              || step instanceof VolumeClaimStep.Publish
              || step instanceof VolumeClaimStep.AttachWithoutCall
              || step instanceof VolumeClaimStep.AwaitNode)) {
        out.add("a claim on a node that may return was let go: " + s + " -> " + step);
      }
      // Seed 77: a publish may have succeeded unrecorded, so an unattached claim is unpublished
      // too.
      if (s.state() == State.NodeDetached
          && s.publishes()
          && !s.shared()
          && !(step instanceof VolumeClaimStep.Unpublish)) {
        out.add("a released claim left attached: " + s + " -> " + step);
      }
      // Seed 839: ControllerUnpublish detaches the node, so not while another taken claim there
      // uses it.
      if (s.shared() && step instanceof VolumeClaimStep.Unpublish) {
        out.add("detached from under another claim's process: " + s + " -> " + step);
      }
      // Nothing goes backwards: a claim that began letting go is never published or held again.
      if (s.state() != State.Taken
          && (step instanceof VolumeClaimStep.Publish
              || step instanceof VolumeClaimStep.Hold
              || step instanceof VolumeClaimStep.AttachWithoutCall)) {
        out.add("a released claim taken again: " + s + " -> " + step);
      }
    }
    return out;
  }

  @Test
  void theRealDeciderKeepsEveryPromiseInEverySituation() {
    assertThat(all()).hasSize(State.values().length * 2 * 2 * NodeFate.values().length * 2 * 2);
    assertThat(broken(REAL)).isEmpty();
  }

  @Test
  void aDeciderThatTreatsAQuietNodeAsDeadIsCaught() {
    Decider naive =
        s ->
            s.state() == State.Taken && !s.holderLive()
                ? new VolumeClaimStep.NodeDetachOnBehalf("holder gone")
                : REAL.next(s);
    assertThat(broken(naive))
        .anyMatch(b -> b.startsWith("a claim on a node that may return was let go"));
  }

  @Test
  void aDeciderThatUnpublishesOnlyRecordedAttachmentsIsCaught() {
    Decider naive =
        s ->
            s.state() == State.NodeDetached && !s.attached()
                ? new VolumeClaimStep.DetachWithoutCall()
                : REAL.next(s);
    assertThat(broken(naive)).anyMatch(b -> b.startsWith("a released claim left attached"));
  }

  @Test
  void aDeciderThatIgnoresASharedAttachmentIsCaught() {
    Decider naive =
        s ->
            s.state() == State.NodeDetached && s.publishes()
                ? new VolumeClaimStep.Unpublish()
                : REAL.next(s);
    assertThat(broken(naive))
        .anyMatch(b -> b.startsWith("detached from under another claim's process"));
  }
}
