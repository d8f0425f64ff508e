package dev.quartermaster.cli.metrics;

/** The labels of one {@code qm_devices} series. */
public record DeviceGroup(String node, String deviceClass, DeviceState state) {}
