package dev.quartermaster.csi.hostpath;

import java.util.List;

/** A page of ListVolumes; {@code nextToken} is empty on the last page. */
public record VolumePage(List<VolumeEntry> entries, String nextToken) {
  public VolumePage {
    entries = entries == null ? List.of() : List.copyOf(entries);
    nextToken = nextToken == null ? "" : nextToken;
  }
}
