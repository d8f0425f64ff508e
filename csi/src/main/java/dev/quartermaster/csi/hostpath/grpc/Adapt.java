package dev.quartermaster.csi.hostpath.grpc;

import dev.quartermaster.csi.grpc.CsiProtos;
import dev.quartermaster.csi.hostpath.VolumeAccess;
import dev.quartermaster.csi.plugin.CsiCall;
import dev.quartermaster.csi.plugin.CsiCode;
import dev.quartermaster.csi.plugin.CsiException;
import dev.quartermaster.csi.v1.VolumeCapability;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/** What the three adapters share: answering a call, and reading capabilities. */
final class Adapt {
  private Adapt() {}

  /** Answers with {@code body}'s message, or with the status its failure maps to. */
  static <R> void answer(CsiCall call, StreamObserver<R> observer, Supplier<R> body) {
    R response;
    try {
      response = body.get();
    } catch (CsiException e) {
      observer.onError(CsiProtos.toStatus(e));
      return;
    } catch (RuntimeException e) {
      // Unexpected (an I/O failure): INTERNAL with what happened, never a silent hang.
      observer.onError(
          Status.INTERNAL.withDescription(call + ": " + e).withCause(e).asRuntimeException());
      return;
    }
    observer.onNext(response);
    observer.onCompleted();
  }

  /**
   * The capability at {@code field}; a missing or unknown access mode is INVALID_ARGUMENT naming
   * it.
   */
  static VolumeAccess access(
      CsiCall call, String field, boolean present, VolumeCapability capability) {
    if (!present) {
      throw new CsiException(call, CsiCode.INVALID_ARGUMENT, field + " is required");
    }
    if (!capability.hasAccessMode()) {
      throw new CsiException(call, CsiCode.INVALID_ARGUMENT, field + ".access_mode is required");
    }
    var mode = capability.getAccessMode().getMode();
    var ours =
        CsiProtos.fromProto(mode)
            .orElseThrow(
                () ->
                    new CsiException(
                        call,
                        CsiCode.INVALID_ARGUMENT,
                        field + ".access_mode " + mode + " is not supported"));
    return new VolumeAccess(ours, capability.hasBlock());
  }

  static List<VolumeAccess> accesses(
      CsiCall call, String field, List<VolumeCapability> capabilities) {
    var out = new ArrayList<VolumeAccess>();
    for (int i = 0; i < capabilities.size(); i++) {
      out.add(access(call, field + "[" + i + "]", true, capabilities.get(i)));
    }
    return out;
  }
}
