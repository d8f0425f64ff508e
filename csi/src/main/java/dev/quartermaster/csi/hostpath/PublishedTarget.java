package dev.quartermaster.csi.hostpath;

/** A target path on this node and the volume published there. */
public record PublishedTarget(String volumeId, String stagingPath, boolean readOnly) {}
