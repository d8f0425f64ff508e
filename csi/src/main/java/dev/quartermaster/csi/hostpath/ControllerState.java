package dev.quartermaster.csi.hostpath;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/** What the controller persists: every volume, by id. */
public record ControllerState(Map<String, VolumeRecord> volumes) {
  public static final ControllerState EMPTY = new ControllerState(Map.of());

  public ControllerState {
    volumes = volumes == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(volumes));
  }
}
