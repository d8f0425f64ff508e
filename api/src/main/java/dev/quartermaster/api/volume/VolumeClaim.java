package dev.quartermaster.api.volume;

import java.util.Map;

/**
 * One task's hold on a volume. Granted by the volume controller ({@code Taken}, then {@code
 * attached} once ControllerPublish returned, with the plugin's publish context for the node);
 * released step by step, each step persisted before the next call: {@code Taken → NodeDetached}
 * (the node unpublished and unstaged it, or the node was fenced) {@code → ControllerDetached}
 * (ControllerUnpublish returned) {@code → Free} (removed from the list). Only {@link
 * VolumeClaimMachine} moves a claim from one state to the next.
 *
 * @param task the task's name
 * @param taskUid the task incarnation that holds it; a re-created task of the same name is another
 *     holder
 * @param node the node the task runs on
 * @param attached ControllerPublish to {@code node} succeeded (always true for a plugin without
 *     PUBLISH_UNPUBLISH_VOLUME)
 * @param publishContext what ControllerPublish returned, handed to NodeStage/NodePublish
 * @param releaseError while the node's release of a {@code Taken} claim keeps failing, the plugin's
 *     answer (empty otherwise): a claim that cannot be released holds the volume from every other
 *     task, and the task waiting for it says why ({@code describe volume} too)
 */
public record VolumeClaim(
    String task,
    String taskUid,
    String node,
    Mode mode,
    State state,
    boolean attached,
    Map<String, String> publishContext,
    String releaseError) {

  public enum Mode {
    Read,
    Write
  }

  public enum State {
    Taken,
    NodeDetached,
    ControllerDetached,
    Free
  }

  public VolumeClaim {
    task = task == null ? "" : task;
    taskUid = taskUid == null ? "" : taskUid;
    node = node == null ? "" : node;
    mode = mode == null ? Mode.Read : mode;
    state = state == null ? State.Taken : state;
    publishContext = publishContext == null ? Map.of() : Map.copyOf(publishContext);
    releaseError = releaseError == null ? "" : releaseError;
  }

  public VolumeClaim(
      String task,
      String taskUid,
      String node,
      Mode mode,
      State state,
      boolean attached,
      Map<String, String> publishContext) {
    this(task, taskUid, node, mode, state, attached, publishContext, "");
  }

  public VolumeClaim(String task, String node, Mode mode, State state) {
    this(task, "", node, mode, state, false, Map.of());
  }

  /** Whether this claim belongs to the task incarnation {@code name}/{@code uid}. */
  public boolean heldBy(String name, String uid) {
    return task.equals(name) && taskUid.equals(uid);
  }
}
