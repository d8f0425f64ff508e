package dev.quartermaster.agent.health;

/** Told each time a device's health changes (called outside the tracker's lock). */
@FunctionalInterface
public interface HealthListener {
  void changed(String device, DeviceHealth health);
}
