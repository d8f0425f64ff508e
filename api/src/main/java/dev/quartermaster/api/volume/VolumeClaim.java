package dev.quartermaster.api.volume;

import java.util.Map;

/**
 * One task's hold on a volume. Granted by the volume controller ({@code Taken}, then {@code
 * attached} once ControllerPublish returned, with the plugin's publish context for the node); released
 * step by step, each step persisted before the next call: {@code Taken → NodeDetached} (the node
 * unpublished and unstaged it, or the node was fenced) {@code → ControllerDetached}
 * (ControllerUnpublish returned) {@code → Free} (removed from the list).
 *
 * @param task the task's name
 * @param taskUid the task incarnation that holds it; a re-created task of the same name is another holder
 * @param node the node the task runs on
 * @param attached ControllerPublish to {@code node} succeeded (always true for a plugin without
 *     PUBLISH_UNPUBLISH_VOLUME)
 * @param publishContext what ControllerPublish returned, handed to NodeStage/NodePublish
 */
public record VolumeClaim(
    String task, String taskUid, String node, Mode mode, State state, boolean attached,
    Map<String, String> publishContext) {

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
  }

  public VolumeClaim(String task, String node, Mode mode, State state) {
    this(task, "", node, mode, state, false, Map.of());
  }

  public VolumeClaim withState(State s) {
    return new VolumeClaim(task, taskUid, node, mode, s, attached, publishContext);
  }

  public VolumeClaim attachedWith(Map<String, String> context) {
    return new VolumeClaim(task, taskUid, node, mode, state, true, context);
  }

  /** Whether this claim belongs to the task incarnation {@code name}/{@code uid}. */
  public boolean heldBy(String name, String uid) {
    return task.equals(name) && taskUid.equals(uid);
  }
}
