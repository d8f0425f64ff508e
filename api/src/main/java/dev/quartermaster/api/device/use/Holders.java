package dev.quartermaster.api.device.use;

import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Who holds which device of one node, as a caller keeps it (a record's map, a ledger's index, a
 * fit's devices taken so far): what {@link DeviceUse} judges against, without copying it.
 *
 * @param <H> what names a holder (a claim uid, a {@code DeviceHolder}); two holdings of one device
 *     by equal holders are one holding
 */
@FunctionalInterface
public interface Holders<H> {
  Optional<H> holderOf(String device);

  default boolean holds(String device) {
    return holderOf(device).isPresent();
  }

  /** No device held. */
  static <H> Holders<H> none() {
    return d -> Optional.empty();
  }

  /** The holders of a map keyed by device (a view: later changes to the map show). */
  static <H> Holders<H> of(Map<String, ? extends H> byDevice) {
    return new Holders<>() {
      @Override
      public Optional<H> holderOf(String device) {
        return Optional.ofNullable(byDevice.get(device));
      }

      @Override
      public boolean holds(String device) {
        return byDevice.containsKey(device);
      }
    };
  }

  /** Every device of {@code devices} held by {@code holder} (a view). */
  static <H> Holders<H> all(Set<String> devices, H holder) {
    return new Holders<>() {
      @Override
      public Optional<H> holderOf(String device) {
        return devices.contains(device) ? Optional.of(holder) : Optional.empty();
      }

      @Override
      public boolean holds(String device) {
        return devices.contains(device);
      }
    };
  }

  /** These holdings, then {@code other}'s for the devices these leave unheld. */
  default Holders<H> or(Holders<H> other) {
    var first = this;
    return new Holders<>() {
      @Override
      public Optional<H> holderOf(String device) {
        var h = first.holderOf(device);
        return h.isPresent() ? h : other.holderOf(device);
      }

      @Override
      public boolean holds(String device) {
        return first.holds(device) || other.holds(device);
      }
    };
  }
}
