package dev.quartermaster.api.volume;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.volume.VolumeClaim.Mode;
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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/**
 * {@link VolumeClaimMachine#apply}, as Nomad's {@code startingState} cases: every (state, event)
 * with the state it leads to, or a refusal. The same table run on a naive machine — the state each
 * event names, set whatever the claim's state, as the writers did by hand — must fail it.
 */
class VolumeClaimMachineApplyTest {
  private static final List<VolumeClaimEvent> EVENTS =
      List.of(
          new Attached(Map.of("device", "/dev/x")),
          new NodeReleased(),
          new ReleaseFailed("NodeUnstageVolume: FAILED_PRECONDITION"),
          new NodeGone(),
          new ControllerReleased(),
          new Freed());

  /**
   * A claim in {@code from} meets {@code event}: {@code to} is its next state, empty when it is
   * refused.
   */
  record Row(State from, Class<? extends VolumeClaimEvent> event, Optional<State> to) {
    @Override
    public String toString() {
      return from + " --" + event.getSimpleName() + "--> " + to.map(State::name).orElse("refused");
    }
  }

  private static final List<Row> TABLE =
      List.of(
          row(State.Taken, Attached.class, State.Taken),
          row(State.Taken, NodeReleased.class, State.NodeDetached),
          row(State.Taken, ReleaseFailed.class, State.Taken),
          row(State.Taken, NodeGone.class, State.NodeDetached),
          refused(
              State.Taken,
              ControllerReleased.class), // never detached from under the node's processes
          refused(State.Taken, Freed.class), // a taken claim holds the volume
          refused(State.NodeDetached, Attached.class), // a late publish outcome does not revive it
          refused(State.NodeDetached, NodeReleased.class),
          refused(State.NodeDetached, ReleaseFailed.class),
          refused(State.NodeDetached, NodeGone.class),
          row(State.NodeDetached, ControllerReleased.class, State.ControllerDetached),
          refused(
              State.NodeDetached,
              Freed.class), // seed 77: freed before ControllerUnpublish, the volume stays attached
          refused(State.ControllerDetached, Attached.class),
          refused(
              State.ControllerDetached,
              NodeReleased.class), // an agent's stale release does not move it back
          refused(State.ControllerDetached, ReleaseFailed.class),
          refused(State.ControllerDetached, NodeGone.class),
          refused(State.ControllerDetached, ControllerReleased.class),
          row(State.ControllerDetached, Freed.class, State.Free),
          refused(State.Free, Attached.class),
          refused(State.Free, NodeReleased.class),
          refused(State.Free, ReleaseFailed.class),
          refused(State.Free, NodeGone.class),
          refused(State.Free, ControllerReleased.class),
          row(State.Free, Freed.class, State.Free));

  private static Row row(State from, Class<? extends VolumeClaimEvent> event, State to) {
    return new Row(from, event, Optional.of(to));
  }

  private static Row refused(State from, Class<? extends VolumeClaimEvent> event) {
    return new Row(from, event, Optional.empty());
  }

  private static VolumeClaim claim(State s, boolean attached) {
    return new VolumeClaim(
        "train-0", "uid-1", "node-3", Mode.Write, s, attached, Map.of("device", "/dev/old"));
  }

  /** The rows a machine does not keep, for claims attached and not. */
  private static List<String> broken(
      BiFunction<VolumeClaim, VolumeClaimEvent, VolumeClaimMove> machine) {
    var out = new ArrayList<String>();
    for (var row : TABLE) {
      var event = EVENTS.stream().filter(row.event()::isInstance).findFirst().orElseThrow();
      for (boolean attached : List.of(false, true)) {
        var got =
            switch (machine.apply(claim(row.from(), attached), event)) {
              case Moved m -> Optional.of(m.claim().state());
              case Refused r -> Optional.<State>empty();
            };
        if (!got.equals(row.to())) {
          out.add(
              row
                  + (attached ? " (attached)" : "")
                  + " but got "
                  + got.map(State::name).orElse("refused"));
        }
      }
    }
    return out;
  }

  /**
   * The state each event names, set whatever the claim's state: the hand-written assignments the
   * machine replaced.
   */
  private static VolumeClaimMove naive(VolumeClaim c, VolumeClaimEvent e) {
    var to =
        switch (e) {
          case Attached a -> c.state();
          case ReleaseFailed f -> c.state();
          case NodeReleased n -> State.NodeDetached;
          case NodeGone g -> State.NodeDetached;
          case ControllerReleased r -> State.ControllerDetached;
          case Freed f -> State.Free;
        };
    return new Moved(
        new VolumeClaim(
            c.task(),
            c.taskUid(),
            c.node(),
            c.mode(),
            to,
            c.attached() || e instanceof Attached,
            c.publishContext()));
  }

  @Test
  void theTableHasEveryStateAndEventOnce() {
    assertThat(TABLE).hasSize(State.values().length * EVENTS.size());
    for (var s : State.values()) {
      for (var e : EVENTS) {
        assertThat(TABLE)
            .as("%s x %s", s, e)
            .filteredOn(r -> r.from() == s && r.event() == e.getClass())
            .hasSize(1);
      }
    }
    assertThat(Arrays.stream(VolumeClaimEvent.class.getPermittedSubclasses()).toList())
        .containsExactlyInAnyOrderElementsOf(EVENTS.stream().map(Object::getClass).toList());
  }

  @Test
  void theMachineKeepsEveryRow() {
    assertThat(broken(VolumeClaimMachine::apply)).isEmpty();
  }

  @Test
  void theNaiveMachineIsCaught() {
    assertThat(broken(VolumeClaimMachineApplyTest::naive))
        .anyMatch(b -> b.startsWith("NodeDetached --Freed--> refused"))
        .anyMatch(b -> b.startsWith("ControllerDetached --NodeReleased--> refused"))
        .anyMatch(b -> b.startsWith("Taken --ControllerReleased--> refused"));
  }

  @Test
  void aRefusalNamesTheClaimAndTheRule() {
    var refused = VolumeClaimMachine.apply(claim(State.NodeDetached, true), new Freed());
    assertThat(refused)
        .isEqualTo(
            new Refused(
                "Freed of task train-0's NodeDetached claim on node-3: a claim is freed"
                    + " only once the controller detached it: until then it holds the volume from any other writer"));
    assertThatThrownBy(refused::orThrow)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("freed only once");
    assertThat(refused.orElse(claim(State.Taken, false))).isEqualTo(claim(State.Taken, false));
  }

  @Test
  void aMoveToAnotherStateDropsTheReleaseErrorAndKeepsTheAttachment() {
    var failing =
        VolumeClaimMachine.apply(claim(State.Taken, true), new ReleaseFailed("still published"))
            .orThrow();
    assertThat(failing.releaseError()).isEqualTo("still published");
    assertThat(failing.state()).isEqualTo(State.Taken);
    var released = VolumeClaimMachine.apply(failing, new NodeReleased()).orThrow();
    assertThat(released)
        .isEqualTo(
            new VolumeClaim(
                "train-0",
                "uid-1",
                "node-3",
                Mode.Write,
                State.NodeDetached,
                true,
                Map.of("device", "/dev/old"),
                ""));
    // Said again while it still fails; an attachment recorded meanwhile keeps it.
    var attached =
        VolumeClaimMachine.apply(failing, new Attached(Map.of("device", "/dev/new"))).orThrow();
    assertThat(attached.releaseError()).isEqualTo("still published");
    assertThat(attached.publishContext()).containsEntry("device", "/dev/new");
    assertThat(attached.attached()).isTrue();
  }

  @Test
  void aGrantIsTakenAndNotYetAttached() {
    assertThat(VolumeClaimMachine.grant("train-0", "uid-1", "node-3", Mode.Read))
        .isEqualTo(
            new VolumeClaim(
                "train-0", "uid-1", "node-3", Mode.Read, State.Taken, false, Map.of(), ""));
  }

  @Test
  void onlyTheNodesOwnStepsAreTheAgents() {
    assertThat(EVENTS)
        .filteredOn(e -> e.writer() == Writer.Agent)
        .extracting(e -> e.getClass().getSimpleName())
        .containsExactlyInAnyOrder("NodeReleased", "ReleaseFailed");
  }

  /**
   * How the server judges an agent's write of a claim: one of the agent's events, and nothing else
   * changed.
   */
  @Test
  void movedByAcceptsOnlyOneEventOfTheWriter() {
    var taken = claim(State.Taken, true);
    var released = VolumeClaimMachine.apply(taken, new NodeReleased()).orThrow();
    assertThat(VolumeClaimMachine.movedBy(taken, released, Writer.Agent)).isTrue();
    var said = VolumeClaimMachine.apply(taken, new ReleaseFailed("failing")).orThrow();
    assertThat(VolumeClaimMachine.movedBy(taken, said, Writer.Agent)).isTrue();
    // The controller's steps, two steps at once, a move back, or another field changed with a step.
    var detached = VolumeClaimMachine.apply(released, new ControllerReleased()).orThrow();
    assertThat(VolumeClaimMachine.movedBy(released, detached, Writer.Agent)).isFalse();
    assertThat(VolumeClaimMachine.movedBy(released, detached, Writer.Controller)).isTrue();
    assertThat(VolumeClaimMachine.movedBy(taken, detached, Writer.Agent)).isFalse();
    assertThat(VolumeClaimMachine.movedBy(released, taken, Writer.Agent)).isFalse();
    var asReader =
        new VolumeClaim(
            "train-0",
            "uid-1",
            "node-3",
            Mode.Read,
            State.NodeDetached,
            true,
            Map.of("device", "/dev/old"));
    assertThat(VolumeClaimMachine.movedBy(taken, asReader, Writer.Agent)).isFalse();
    var unpublishedToo =
        new VolumeClaim(
            "train-0",
            "uid-1",
            "node-3",
            Mode.Write,
            State.NodeDetached,
            false,
            Map.of("device", "/dev/old"));
    assertThat(VolumeClaimMachine.movedBy(taken, unpublishedToo, Writer.Agent)).isFalse();
  }

  @Test
  void onlyADetachedClaimMayLeaveTheList() {
    assertThat(
            Arrays.stream(State.values()).filter(s -> VolumeClaimMachine.mayLeave(claim(s, true))))
        .containsExactly(State.ControllerDetached, State.Free);
  }
}
