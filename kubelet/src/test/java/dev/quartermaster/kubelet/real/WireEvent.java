package dev.quartermaster.kubelet.real;

import java.time.Instant;
import java.util.List;

/**
 * One claim's part of a call between the kubelet and a DRA plugin, as it passed the recording
 * proxy: when the request arrived and when its answer was sent ({@link CallTimes}), and what the
 * answer said — what the kubelet believes from then on.
 */
public sealed interface WireEvent {
  CallTimes times();

  String uid();

  /** When the answer went back to the kubelet. */
  default Instant at() {
    return times().answered();
  }

  /** The claim is prepared with {@code devices} (pool/device). */
  record Prepared(CallTimes times, String uid, String name, List<String> devices)
      implements WireEvent {}

  /** The prepare was refused; the kubelet will retry. */
  record PrepareRefused(CallTimes times, String uid, String name, String error)
      implements WireEvent {}

  /** The claim is unprepared. */
  record Unprepared(CallTimes times, String uid) implements WireEvent {}

  /**
   * The call ({@code NodePrepareResources} or {@code NodeUnprepareResources}) got no answer from
   * the plugin (killed, say); the kubelet got an error and will call again. Whether the plugin did
   * the work before it died the wire cannot tell: the record shows it so a reader can.
   */
  record CallFailed(CallTimes times, String uid, String call, String error) implements WireEvent {}
}
