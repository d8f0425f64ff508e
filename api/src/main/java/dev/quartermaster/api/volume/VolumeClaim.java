package dev.quartermaster.api.volume;

/**
 * One task's hold on a volume, released step by step: Taken → NodeDetached → ControllerDetached →
 * Free.
 */
public record VolumeClaim(String task, String node, Mode mode, State state) {

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
    node = node == null ? "" : node;
    mode = mode == null ? Mode.Read : mode;
    state = state == null ? State.Taken : state;
  }
}
