package dev.quartermaster.api.format;

import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeClaim;
import java.util.List;

/**
 * A volume's state in one word for a person: {@code Deleting} once a delete was asked for (with
 * {@code (in use)} while claims hold it), else from its claims before its phase: {@code InUse}
 * while any task holds it, {@code Releasing} while a claim is being let go (past {@code Taken}),
 * else the controller's phase ({@code Pending}, {@code Available}, {@code Deleting}).
 */
public final class VolumeState {
  private VolumeState() {}

  /** Claims not yet {@code Free}: a task still holds them, or their release is under way. */
  public static List<VolumeClaim> live(Volume v) {
    return v.status().claims().stream().filter(c -> c.state() != VolumeClaim.State.Free).toList();
  }

  public static String phase(Volume v) {
    var live = live(v);
    if (v.metadata().isDeleting()) {
      return live.isEmpty() ? "Deleting" : "Deleting (in use)";
    }
    if (live.stream().anyMatch(c -> c.state() != VolumeClaim.State.Taken)) {
      return "Releasing";
    }
    return live.isEmpty() ? v.status().phase().name() : "InUse";
  }

  /** {@code readers/writers} among the live claims, e.g. {@code 2/1}. */
  public static String claims(Volume v) {
    var live = live(v);
    long writers = live.stream().filter(c -> c.mode() == VolumeClaim.Mode.Write).count();
    return (live.size() - writers) + "/" + writers;
  }

  /**
   * The claim's step in the protocol: {@code Taken (attached)}, {@code Taken (waiting for
   * ControllerPublish)}, {@code NodeDetached}, {@code ControllerDetached} or {@code Free}.
   */
  public static String step(VolumeClaim c) {
    if (c.state() != VolumeClaim.State.Taken) {
      return c.state().name();
    }
    return c.attached() ? "Taken (attached)" : "Taken (waiting for ControllerPublish)";
  }
}
