package dev.quartermaster.api.volume;

/**
 * The condition types of a Volume's status: one home for the words the volume controller writes and
 * the rest read.
 */
public final class VolumeConditions {
  /** Whether the volume exists in its plugin and may be claimed. */
  public static final String READY = "Ready";

  /**
   * Whether the last call to the plugin succeeded; when not, which call failed and the plugin's
   * answer.
   */
  public static final String CALLS = "CallsSucceeding";

  private VolumeConditions() {}
}
