package dev.quartermaster.api.allocation;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * @param reservations gang key ({@code <workload>/<gang>}, {@link GangReservation#key}) → that
 *     gang's reservation: a gang has at most one decision in flight
 */
public record GangLedgerSpec(Map<String, GangReservation> reservations) {
  public static final GangLedgerSpec EMPTY = new GangLedgerSpec(Map.of());

  public GangLedgerSpec {
    reservations = reservations == null ? Map.of() : Map.copyOf(reservations);
  }

  public Optional<GangReservation> reservation(String gangKey) {
    return Optional.ofNullable(reservations.get(gangKey));
  }

  /** This ledger with {@code r} (replacing the gang's earlier reservation, if any). */
  public GangLedgerSpec with(GangReservation r) {
    var next = new HashMap<>(reservations);
    next.put(r.key(), r);
    return new GangLedgerSpec(next);
  }

  /** This ledger without the reservation of gang {@code gangKey}. */
  public GangLedgerSpec without(String gangKey) {
    var next = new HashMap<>(reservations);
    next.remove(gangKey);
    return new GangLedgerSpec(next);
  }

  /** A device a reservation holds: which gang's, and for which claim. */
  public record Reserved(String gang, DeviceHolder holder) {
    @Override
    public String toString() {
      return "gang " + gang + ", " + holder;
    }
  }

  /** Node → device → the reservation holding it, over every reservation (ordered, for messages). */
  public Map<String, Map<String, Reserved>> byNode() {
    var out = new TreeMap<String, Map<String, Reserved>>();
    reservations.forEach(
        (gang, r) ->
            r.devices()
                .forEach(
                    d ->
                        out.computeIfAbsent(d.node(), n -> new TreeMap<>())
                            .putIfAbsent(d.device(), new Reserved(gang, d.holder()))));
    return out;
  }
}
