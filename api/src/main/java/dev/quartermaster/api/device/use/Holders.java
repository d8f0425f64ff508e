package dev.quartermaster.api.device.use;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * Who holds which device of one node, as a caller keeps it (a record's map, a ledger's index, a
 * fit's devices taken so far): what {@link DeviceUse} judges against, without copying it.
 *
 * @param <H> what names a holder (a claim uid, a {@code DeviceHolder}); two holdings of one device
 *     by equal holders are one holding
 */
public interface Holders<H> {
  Optional<H> holderOf(String device);

  /**
   * Each holding, device and holder, a device once (the first holder, as {@link #holderOf}): what
   * the shares of an MPS GPU are summed from, since their names are not known beforehand.
   */
  void forEach(BiConsumer<String, ? super H> action);

  default boolean holds(String device) {
    return holderOf(device).isPresent();
  }

  /** No device held. */
  static <H> Holders<H> none() {
    return of(Map.of());
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

      @Override
      public void forEach(BiConsumer<String, ? super H> action) {
        byDevice.forEach(action);
      }
    };
  }

  /** The holders {@code holder} reads from the values of a map keyed by device (a view). */
  static <V, H> Holders<H> of(
      Map<String, V> byDevice, java.util.function.Function<? super V, ? extends H> holder) {
    return new Holders<>() {
      @Override
      public Optional<H> holderOf(String device) {
        var v = byDevice.get(device);
        return v == null ? Optional.empty() : Optional.of(holder.apply(v));
      }

      @Override
      public void forEach(BiConsumer<String, ? super H> action) {
        byDevice.forEach((d, v) -> action.accept(d, holder.apply(v)));
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

      @Override
      public void forEach(BiConsumer<String, ? super H> action) {
        devices.forEach(d -> action.accept(d, holder));
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

      @Override
      public void forEach(BiConsumer<String, ? super H> action) {
        first.forEach(action);
        other.forEach(
            (d, h) -> {
              if (!first.holds(d)) {
                action.accept(d, h);
              }
            });
      }
    };
  }
}
