package dev.quartermaster.kubelet.real;

import java.time.Instant;
import java.util.List;

/**
 * One answer a DRA plugin gave the kubelet, as it passed on the wire: what the kubelet believes
 * from then on.
 */
public sealed interface WireEvent {
  Instant at();

  String uid();

  /** The claim is prepared with {@code devices} (pool/device). */
  record Prepared(Instant at, String uid, String name, List<String> devices) implements WireEvent {}

  /** The prepare was refused; the kubelet will retry. */
  record PrepareRefused(Instant at, String uid, String name, String error) implements WireEvent {}

  /** The claim is unprepared. */
  record Unprepared(Instant at, String uid) implements WireEvent {}
}
