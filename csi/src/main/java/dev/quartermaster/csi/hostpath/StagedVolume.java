package dev.quartermaster.csi.hostpath;

import dev.quartermaster.api.volume.VolumeSpec.AccessMode;

/** A volume staged on this node: where, and with which access mode. */
public record StagedVolume(String stagingPath, AccessMode mode) {}
