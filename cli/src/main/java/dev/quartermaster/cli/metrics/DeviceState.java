package dev.quartermaster.cli.metrics;

import java.util.Locale;

/**
 * One device's state for {@code qm_devices}: each device is in exactly one, so a node's series sum
 * to its device count. Unhealthy wins over held: an operator looking for broken GPUs must see them
 * even while a claim still holds one.
 */
public enum DeviceState {
  FREE,
  ALLOCATED,
  PREPARED,
  UNHEALTHY;

  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
