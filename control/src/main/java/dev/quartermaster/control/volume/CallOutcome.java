package dev.quartermaster.control.volume;

import dev.quartermaster.csi.plugin.CreatedVolume;
import dev.quartermaster.csi.plugin.CsiException;
import dev.quartermaster.csi.plugin.PluginInfo;
import java.util.Map;

/** What a finished plugin call found, recorded until the volume's next reconcile persists it. */
sealed interface CallOutcome {
  record Created(CreatedVolume volume) implements CallOutcome {}

  record Deleted() implements CallOutcome {}

  record Published(String task, String taskUid, Map<String, String> context)
      implements CallOutcome {}

  record Unpublished(String task, String taskUid) implements CallOutcome {}

  record Info(String endpoint, PluginInfo info) implements CallOutcome {}

  /** The call failed; {@code detail} names what it was about (the node, the task). */
  record Failed(CsiException error, String detail) implements CallOutcome {}
}
