package dev.quartermaster.csi.grpc;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** CSI endpoints: {@code unix:///abs/path} (the form CSI tools use) or a bare absolute path. */
public final class Endpoints {
  /** sun_path is 108 bytes including the terminating NUL. */
  public static final int MAX_SOCKET_PATH_BYTES = 107;

  private Endpoints() {}

  /**
   * The socket's path; anything else than an absolute Unix socket path is IllegalArgumentException.
   */
  public static Path socketPath(String endpoint) {
    var text = endpoint;
    if (text.startsWith("unix://")) {
      text = text.substring("unix://".length());
    } else if (text.startsWith("unix:")) {
      text = text.substring("unix:".length());
    }
    if (text.isEmpty() || !text.startsWith("/")) {
      throw new IllegalArgumentException(
          "CSI endpoint must be unix:///ABSOLUTE/PATH or an absolute path: " + endpoint);
    }
    var path = Path.of(text).normalize();
    if (path.toString().getBytes(StandardCharsets.UTF_8).length > MAX_SOCKET_PATH_BYTES) {
      throw new IllegalArgumentException(
          "socket path is longer than " + MAX_SOCKET_PATH_BYTES + " bytes: " + path);
    }
    return path;
  }
}
