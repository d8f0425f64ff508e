package dev.quartermaster.csi.hostpath;

/** A volume's attachment to one node: the device name it took there and whether it is read-only. */
public record Attachment(String device, boolean readOnly) {
  public Attachment {
    device = device == null ? "" : device;
  }
}
