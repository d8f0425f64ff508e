package dev.quartermaster.control.volume;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.api.volume.VolumeClaim.Mode;
import dev.quartermaster.api.volume.VolumeClaim.State;
import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@link AccessRules#whyNot}: one more claim beside those held, for every access mode. */
class AccessRulesTest {

  private static VolumeClaim held(String task, String node, Mode mode, State state) {
    return new VolumeClaim(task, "uid-" + task, node, mode, state, true, Map.of());
  }

  /**
   * One case: {@code mode} from {@code node} beside {@code held}; {@code fits} whether it is
   * granted.
   */
  record Case(AccessMode access, List<VolumeClaim> held, Mode mode, String node, boolean fits) {}

  private static final VolumeClaim WRITER_ON_1 = held("w", "node-1", Mode.Write, State.Taken);
  private static final VolumeClaim READER_ON_1 = held("r", "node-1", Mode.Read, State.Taken);

  private static final List<Case> TABLE =
      List.of(
          new Case(AccessMode.SingleNodeWriter, List.of(), Mode.Write, "node-1", true),
          new Case(AccessMode.SingleNodeWriter, List.of(READER_ON_1), Mode.Write, "node-1", true),
          new Case(AccessMode.SingleNodeWriter, List.of(READER_ON_1), Mode.Read, "node-2", false),
          new Case(AccessMode.SingleNodeWriter, List.of(WRITER_ON_1), Mode.Write, "node-1", false),
          new Case(AccessMode.SingleNodeWriter, List.of(WRITER_ON_1), Mode.Read, "node-1", true),
          new Case(AccessMode.SingleNodeReaderOnly, List.of(), Mode.Write, "node-1", false),
          new Case(
              AccessMode.SingleNodeReaderOnly, List.of(READER_ON_1), Mode.Read, "node-1", true),
          new Case(
              AccessMode.SingleNodeReaderOnly, List.of(READER_ON_1), Mode.Read, "node-2", false),
          new Case(AccessMode.MultiNodeReaderOnly, List.of(), Mode.Write, "node-1", false),
          new Case(AccessMode.MultiNodeReaderOnly, List.of(READER_ON_1), Mode.Read, "node-2", true),
          new Case(
              AccessMode.MultiNodeSingleWriter, List.of(READER_ON_1), Mode.Write, "node-2", true),
          new Case(
              AccessMode.MultiNodeSingleWriter, List.of(WRITER_ON_1), Mode.Write, "node-2", false),
          new Case(
              AccessMode.MultiNodeSingleWriter, List.of(WRITER_ON_1), Mode.Read, "node-2", true),
          new Case(
              AccessMode.MultiNodeMultiWriter, List.of(WRITER_ON_1), Mode.Write, "node-2", true),
          new Case(
              AccessMode.MultiNodeMultiWriter,
              List.of(WRITER_ON_1, READER_ON_1),
              Mode.Write,
              "node-1",
              true));

  @Test
  void everyAccessModeByCase() {
    var wrong = new ArrayList<String>();
    for (var c : TABLE) {
      if (AccessRules.whyNot(c.access(), c.held(), c.mode(), c.node()).isEmpty() != c.fits()) {
        wrong.add(c.toString());
      }
    }
    assertThat(wrong).isEmpty();
    assertThat(TABLE).extracting(Case::access).containsAll(List.of(AccessMode.values()));
  }

  @Test
  void theRefusalSaysWhoHoldsItAndWhy() {
    assertThat(
            AccessRules.whyNot(
                AccessMode.SingleNodeWriter, List.of(WRITER_ON_1), Mode.Write, "node-1"))
        .contains("held by task w (writer) on node-1 (SingleNodeWriter allows one writer)");
    assertThat(
            AccessRules.whyNot(
                AccessMode.SingleNodeWriter,
                List.of(held("r", "node-1", Mode.Read, State.NodeDetached)),
                Mode.Read,
                "node-2"))
        .contains(
            "held by task r (reader) on node-1, releasing: NodeDetached (SingleNodeWriter allows one node)");
    assertThat(AccessRules.whyNot(AccessMode.MultiNodeReaderOnly, List.of(), Mode.Write, "node-1"))
        .contains("the volume is read-only (MultiNodeReaderOnly); use it with readOnly: true");
  }

  /**
   * Nomad's rule: a writer that is still letting go holds the volume, in every state but Free. A
   * naive rule that counts only Taken claims lets a second writer in while the first is detaching.
   */
  @Test
  void aWriterThatIsStillLettingGoHoldsTheVolume() {
    for (var state : List.of(State.Taken, State.NodeDetached, State.ControllerDetached)) {
      var releasing = List.of(held("w", "node-1", Mode.Write, state));
      assertThat(AccessRules.whyNot(AccessMode.SingleNodeWriter, releasing, Mode.Write, "node-1"))
          .as("%s", state)
          .isPresent();
      assertThat(
              AccessRules.whyNot(AccessMode.MultiNodeSingleWriter, releasing, Mode.Write, "node-2"))
          .as("%s", state)
          .isPresent();
      var naive = releasing.stream().filter(c -> c.state() == State.Taken).toList();
      if (state != State.Taken) {
        assertThat(AccessRules.whyNot(AccessMode.SingleNodeWriter, naive, Mode.Write, "node-2"))
            .as("the naive rule grants a second writer beside a %s one", state)
            .isEqualTo(Optional.empty());
      }
    }
  }
}
