package dev.quartermaster.csi.hostpath;

import dev.quartermaster.csi.plugin.CsiCall;
import dev.quartermaster.csi.plugin.CsiCode;
import dev.quartermaster.csi.plugin.CsiException;
import java.nio.file.Path;

/** Argument checks shared by the controller and the node; each failure names the spec's field. */
final class Args {
  private Args() {}

  static String required(CsiCall call, String field, String value) {
    if (value == null || value.isEmpty()) {
      throw invalid(call, field + " is required");
    }
    return value;
  }

  /**
   * A volume name or id, which becomes a directory name under the state directory: it may not name
   * a parent, itself, or a deeper path.
   */
  static String pathSafe(CsiCall call, String field, String value) {
    required(call, field, value);
    if (value.equals(".")
        || value.equals("..")
        || value.indexOf('/') >= 0
        || value.indexOf('\0') >= 0
        || value.length() > 128) {
      throw invalid(
          call,
          field
              + " \""
              + value
              + "\" is not usable as a directory name (no '/', '.', '..'; at most 128 chars)");
    }
    return value;
  }

  static Path absolute(CsiCall call, String field, String value) {
    required(call, field, value);
    var path = Path.of(value);
    if (!path.isAbsolute()) {
      throw invalid(call, field + " must be an absolute path: " + value);
    }
    return path.normalize();
  }

  static CsiException invalid(CsiCall call, String message) {
    return new CsiException(call, CsiCode.INVALID_ARGUMENT, message);
  }
}
