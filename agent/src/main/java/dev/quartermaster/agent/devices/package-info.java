/**
 * The agent's view of this node's devices: {@link dev.quartermaster.agent.devices.DeviceRoot}
 * (where to look: {@code /}, or a simulated root), {@link
 * dev.quartermaster.agent.devices.NodeDevices} (the discovery backend it picks, NVML or {@code
 * /proc}, and the health source that feeds each GPU's health) and {@link
 * dev.quartermaster.agent.devices.Inventory} (one discovery's result, with what it left out and
 * why).
 */
package dev.quartermaster.agent.devices;
