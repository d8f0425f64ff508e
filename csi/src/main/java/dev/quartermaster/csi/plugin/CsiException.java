package dev.quartermaster.csi.plugin;

/** A CSI call that failed: which call, the gRPC code and the plugin's message. */
public final class CsiException extends RuntimeException {
  private final CsiCall call;
  private final CsiCode code;
  private final String detail;

  public CsiException(CsiCall call, CsiCode code, String message) {
    super(call + ": " + code + (message == null || message.isEmpty() ? "" : ": " + message));
    this.call = call;
    this.code = code;
    this.detail = message == null ? "" : message;
  }

  /**
   * The plugin's own message, without the call and code (what a gRPC server puts in the status).
   */
  public String detail() {
    return detail;
  }

  public CsiCall call() {
    return call;
  }

  public CsiCode code() {
    return code;
  }

  /** The CsiException behind {@code t} (unwrapping completion wrappers), or one saying UNKNOWN. */
  public static CsiException of(CsiCall call, Throwable t) {
    var cur = t;
    while (cur != null) {
      if (cur instanceof CsiException e) {
        return e;
      }
      cur = cur.getCause();
    }
    return new CsiException(call, CsiCode.UNKNOWN, String.valueOf(t));
  }
}
