package dev.quartermaster.csi.grpc;

import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.csi.plugin.CsiCall;
import dev.quartermaster.csi.plugin.CsiCode;
import dev.quartermaster.csi.plugin.CsiException;
import dev.quartermaster.csi.v1.VolumeCapability;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.Optional;

/**
 * Conversions between the CSI wire types and ours, and between gRPC statuses and {@link
 * CsiException}.
 */
public final class CsiProtos {
  private CsiProtos() {}

  public static VolumeCapability.AccessMode.Mode toProto(AccessMode mode) {
    return switch (mode) {
      case SingleNodeWriter -> VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER;
      case SingleNodeReaderOnly -> VolumeCapability.AccessMode.Mode.SINGLE_NODE_READER_ONLY;
      case MultiNodeReaderOnly -> VolumeCapability.AccessMode.Mode.MULTI_NODE_READER_ONLY;
      case MultiNodeSingleWriter -> VolumeCapability.AccessMode.Mode.MULTI_NODE_SINGLE_WRITER;
      case MultiNodeMultiWriter -> VolumeCapability.AccessMode.Mode.MULTI_NODE_MULTI_WRITER;
    };
  }

  /**
   * Ours for the spec's mode; empty for UNKNOWN and the alpha single-node modes we have no name
   * for.
   */
  public static Optional<AccessMode> fromProto(VolumeCapability.AccessMode.Mode mode) {
    return Optional.ofNullable(
        switch (mode) {
          case SINGLE_NODE_WRITER -> AccessMode.SingleNodeWriter;
          case SINGLE_NODE_READER_ONLY -> AccessMode.SingleNodeReaderOnly;
          case MULTI_NODE_READER_ONLY -> AccessMode.MultiNodeReaderOnly;
          case MULTI_NODE_SINGLE_WRITER -> AccessMode.MultiNodeSingleWriter;
          case MULTI_NODE_MULTI_WRITER -> AccessMode.MultiNodeMultiWriter;
          default -> null;
        });
  }

  /**
   * A mount capability with {@code mode}: every capability we send is a mount (volumes are file
   * systems to us).
   */
  public static VolumeCapability mount(AccessMode mode) {
    return VolumeCapability.newBuilder()
        .setMount(VolumeCapability.MountVolume.getDefaultInstance())
        .setAccessMode(VolumeCapability.AccessMode.newBuilder().setMode(toProto(mode)))
        .build();
  }

  /** The status a server answers with for {@code e}. */
  public static StatusRuntimeException toStatus(CsiException e) {
    return Status.fromCode(Status.Code.valueOf(e.code().name()))
        .withDescription(e.detail())
        .asRuntimeException();
  }

  /**
   * The CsiException a client raises for a failed call; a bare OK (which cannot fail) reads
   * UNKNOWN.
   */
  public static CsiException fromStatus(CsiCall call, Status status) {
    var code =
        status.getCode() == Status.Code.OK
            ? CsiCode.UNKNOWN
            : CsiCode.valueOf(status.getCode().name());
    var description = status.getDescription() == null ? "" : status.getDescription();
    if (status.getCause() != null && description.isEmpty()) {
      description = String.valueOf(status.getCause());
    }
    return new CsiException(call, code, description);
  }
}
