package dev.quartermaster.api.device.use;

/** One device of a node held by one holder: an input of {@link DeviceUse#overConsumed}. */
public record Holding<H>(String device, H holder) {}
