package dev.quartermaster.api.device.use;

import java.util.Optional;

/**
 * Why {@code device} cannot be held by {@code holder}: {@code heldDevice} is held by {@code heldBy}
 * and together they take more of a counter than there is.
 *
 * @param over the shared counter they over-consume; empty: the device's own counter, i.e. {@code
 *     heldDevice} is {@code device} itself, held by another, or the whole {@code device} is part of
 *     (or a part of it: {@link Parts})
 */
public record Clash<H>(
    String device, H holder, String heldDevice, H heldBy, Optional<Overload> over) {

  /** A shared counter asked for beyond what there is. */
  public record Overload(Counter counter, long consumed, long capacity) {
    @Override
    public String toString() {
      return "counter " + counter + ": " + consumed + " of " + capacity;
    }
  }

  /** "device X is held by H", or for a shared counter what over-consumes it. */
  public String describe() {
    return describe("");
  }

  /** As {@link #describe()}, with {@code where} (" on node N") after the device's name. */
  public String describe(String where) {
    return over.map(
            o ->
                "device "
                    + device
                    + where
                    + " shares "
                    + o
                    + " with device "
                    + heldDevice
                    + ", held by "
                    + heldBy)
        .orElseGet(
            () ->
                heldDevice.equals(device)
                    ? "device " + device + where + " is held by " + heldBy
                    : "device "
                        + device
                        + where
                        + " and device "
                        + heldDevice
                        + " are one GPU (a part and its whole); "
                        + heldDevice
                        + " is held by "
                        + heldBy);
  }
}
