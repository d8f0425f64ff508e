package dev.quartermaster.csi.hostpath;

/** ValidateVolumeCapabilities' answer: confirmed, or not with the reason. */
public record Validation(boolean confirmed, String message) {
  public Validation {
    message = message == null ? "" : message;
  }
}
