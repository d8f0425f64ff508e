package dev.quartermaster.control.volume;

import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.api.volume.VolumeClaim.Mode;
import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import java.util.List;
import java.util.Optional;

/**
 * Whether one more claim fits a volume's CSI access mode, counting every claim not yet freed: a
 * writer that is still detaching still holds the volume (Nomad's rule: a write claim leaves the
 * list only at ReadyToFree), so a second writer never overlaps a first one that has not finished
 * letting go.
 *
 * <pre>
 * SingleNodeWriter       every claim on one node, at most one writer
 * SingleNodeReaderOnly   readers only, on one node
 * MultiNodeReaderOnly    readers only, any nodes
 * MultiNodeSingleWriter  at most one writer, readers anywhere
 * MultiNodeMultiWriter   anything
 * </pre>
 */
public final class AccessRules {
  private AccessRules() {}

  /**
   * Why a {@code mode} claim from {@code node} does not fit beside {@code held}; empty when it
   * fits.
   */
  public static Optional<String> whyNot(
      AccessMode access, List<VolumeClaim> held, Mode mode, String node) {
    if (mode == Mode.Write
        && (access == AccessMode.SingleNodeReaderOnly
            || access == AccessMode.MultiNodeReaderOnly)) {
      return Optional.of("the volume is read-only (" + access + "); use it with readOnly: true");
    }
    if (access == AccessMode.SingleNodeWriter || access == AccessMode.SingleNodeReaderOnly) {
      var elsewhere = held.stream().filter(c -> !c.node().equals(node)).findFirst();
      if (elsewhere.isPresent()) {
        return Optional.of(
            "held by " + describe(elsewhere.get()) + " (" + access + " allows one node)");
      }
    }
    if (mode == Mode.Write && access != AccessMode.MultiNodeMultiWriter) {
      var writer = held.stream().filter(c -> c.mode() == Mode.Write).findFirst();
      if (writer.isPresent()) {
        return Optional.of(
            "held by " + describe(writer.get()) + " (" + access + " allows one writer)");
      }
    }
    return Optional.empty();
  }

  /** "task train-w-0 (writer) on node-3, releasing: NodeDetached". */
  public static String describe(VolumeClaim c) {
    return "task "
        + c.task()
        + " ("
        + (c.mode() == Mode.Write ? "writer" : "reader")
        + ") on "
        + c.node()
        + (c.state() == VolumeClaim.State.Taken ? "" : ", releasing: " + c.state());
  }
}
