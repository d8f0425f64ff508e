package dev.quartermaster.agent.ledger;

import dev.quartermaster.api.device.use.DeviceUse;
import dev.quartermaster.api.device.use.Holding;
import java.util.ArrayList;
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
   * is never accepted (not from a checkpoint, not from a caller). Judged as whole devices: the
   * checkpoint does not know the node's counters.
   */
  public Optional<String> doubleHeld() {
    return overConsumed(DeviceUse.WHOLE_DEVICES);
  }

  /**
   * As {@link #doubleHeld}, judged by the node's device use: the first counter the held entries
   * over-consume, if any.
   */
  public Optional<String> overConsumed(DeviceUse use) {
    var holdings = new ArrayList<Holding<ClaimState>>();
    for (var entry : claims.values()) {
      if (entry.holdsDevices()) {
        entry.devices().forEach(d -> holdings.add(new Holding<>(d, entry)));
      }
    }
    return use.overConsumed(holdings)
        .map(
            c ->
                c.over().isEmpty()
                    ? "device "
                        + c.device()
                        + " is held by two claims: "
                        + named(c.heldBy())
                        + " and "
                        + named(c.holder())
                    : "device "
                        + c.device()
                        + ", held by "
                        + named(c.holder())
                        + ", shares "
                        + c.over().get()
                        + " with device "
                        + c.heldDevice()
                        + ", held by "
                        + named(c.heldBy()));
  }

  private static String named(ClaimState entry) {
    return entry.claim() + " (" + entry.stateName() + ")";
  }

  /**
   * Entries whose claim is called {@code name} (a re-created claim has a new uid and the same
   * name).
   */
  public List<ClaimState> byName(String name) {
    return claims.values().stream().filter(c -> c.claim().name().equals(name)).toList();
  }
}
