package dev.quartermaster.api.allocation;

/**
 * The claim that holds a device: its name (to find it) and its uid (so a claim deleted and
 * re-created under the same name is not taken for the holder).
 */
public record DeviceHolder(String claim, String uid) {
  public DeviceHolder {
    claim = claim == null ? "" : claim;
    uid = uid == null ? "" : uid;
  }

  @Override
  public String toString() {
    return "claim " + claim + " (uid " + uid + ")";
  }
}
