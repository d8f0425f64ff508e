package dev.quartermaster.agent.node;

import dev.quartermaster.agent.mig.MigModeChanges;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.node.MigMode;
import dev.quartermaster.api.node.NodeConditions;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The Node's {@code MigReady} condition, from the last pass over the MIG wish and what the GPUs
 * offered after it. A node that never had a MIG wish gets none (nothing to say); once it had one,
 * the condition stays, {@code True} again when the wish is met.
 */
public final class MigReady {
  public static final String APPLIED = "MigModesApplied";
  public static final String WAITING = "MigModeWaiting";
  public static final String NOT_OFFERED = "MigNotOffered";

  private MigReady() {}

  /**
   * {@code False/MigModeWaiting} naming each waiting GPU and the claims it waits out ({@code gpu-0
   * switches to MIG once claims [a, b] let go}); else {@code False/MigNotOffered} with the offers'
   * notes (a model with no known geometry); else {@code True/MigModesApplied} with each GPU's mode.
   * Empty while nothing was ever wished and nothing is amiss.
   *
   * @param notes why a GPU offers less than it might, as {@code MigOffer} says
   * @param had whether the node's status has the condition already
   */
  public static Optional<Condition> of(
      Map<String, MigMode> wish, MigModeChanges changes, List<String> notes, boolean had) {
    if (!changes.waiting().isEmpty()) {
      return Optional.of(
          condition(
              Condition.Status.False,
              WAITING,
              String.join("; ", new TreeMap<>(changes.waiting()).values())));
    }
    if (!notes.isEmpty()) {
      return Optional.of(condition(Condition.Status.False, NOT_OFFERED, String.join("; ", notes)));
    }
    if (wish.isEmpty() && !had) {
      return Optional.empty();
    }
    var modes = new StringBuilder();
    new TreeMap<>(wish)
        .forEach((gpu, mode) -> modes.append(modes.isEmpty() ? "" : ", ").append(gpu + " " + mode));
    return Optional.of(
        condition(
            Condition.Status.True,
            APPLIED,
            wish.isEmpty() ? "no GPU in MIG mode" : "MIG as wished: " + modes));
  }

  private static Condition condition(Condition.Status status, String reason, String message) {
    return new Condition(NodeConditions.MIG_READY, status, reason, message, Optional.empty());
  }
}
