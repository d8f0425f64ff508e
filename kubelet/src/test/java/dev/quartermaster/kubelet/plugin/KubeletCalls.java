package dev.quartermaster.kubelet.plugin;

import dev.quartermaster.kubelet.claims.KubeClaim;
import java.util.List;

/**
 * What a kubelet asks of a DRA plugin, one claim per call, in one API version: our own client of
 * the wire protocol, so the tests speak to the plugin only through its socket.
 */
interface KubeletCalls {

  /** The claim's entry in the NodePrepareResources response. */
  PrepareAnswer prepare(KubeClaim claim);

  /** The claim's {@code error} in the NodeUnprepareResources response ("" = success). */
  String unprepare(KubeClaim claim);

  /** One device of a prepare answer, as on the wire. */
  record WireDevice(String pool, String device, List<String> requests, List<String> cdiIds) {}

  /** A claim's prepare answer: {@code error} "" means prepared. */
  record PrepareAnswer(String error, List<WireDevice> devices) {
    boolean prepared() {
      return error.isEmpty();
    }
  }
}
