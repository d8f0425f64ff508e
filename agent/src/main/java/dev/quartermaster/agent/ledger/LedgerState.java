package dev.quartermaster.agent.ledger;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * An immutable snapshot of the ledger: every claim's entry by uid, and a version that grows by one
 * with every change (so a caller can tell whether what it persisted covers a change it made).
 */
public record LedgerState(Map<String, ClaimState> claims, long version) {
  public static final LedgerState EMPTY = new LedgerState(Map.of(), 0);

  public LedgerState {
    // Sorted by uid, so the checkpoint and `ledger show` are stable.
    claims = Collections.unmodifiableMap(new TreeMap<>(claims));
    if (version < 0) {
      throw new IllegalArgumentException("version must be >= 0: " + version);
    }
  }

  public Optional<ClaimState> get(String uid) {
    return Optional.ofNullable(claims.get(uid));
  }

  /** Entries that hold devices (started or completed), in uid order. */
  public List<ClaimState> holding() {
    return claims.values().stream().filter(ClaimState::holdsDevices).toList();
  }

  /** The entry that holds {@code device}, if any. */
  public Optional<ClaimState> holderOf(String device) {
    return claims.values().stream()
        .filter(c -> c.holdsDevices() && c.devices().contains(device))
        .findFirst();
  }

  /**
   * A description of the first device held by two entries, if any: a state like that breaks I1 and
   * is never accepted (not from a checkpoint, not from a caller).
   */
  public Optional<String> doubleHeld() {
    var holders = new java.util.HashMap<String, ClaimState>();
    for (var entry : claims.values()) {
      if (entry.holdsDevices()) {
        for (var device : entry.devices()) {
          var other = holders.putIfAbsent(device, entry);
          if (other != null) {
            return Optional.of(
                "device "
                    + device
                    + " is held by two claims: "
                    + other.claim()
                    + " ("
                    + other.stateName()
                    + ") and "
                    + entry.claim()
                    + " ("
                    + entry.stateName()
                    + ")");
          }
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Entries whose claim is called {@code name} (a re-created claim has a new uid and the same
   * name).
   */
  public List<ClaimState> byName(String name) {
    return claims.values().stream().filter(c -> c.claim().name().equals(name)).toList();
  }
}
