/**
 * Device discovery. For now a device root is a directory that describes GPUs (layout in {@link
 * dev.quartermaster.agent.devices.DirectoryDeviceRoot}); real discovery (NVML, /proc, char devices,
 * control nodes) comes next.
 */
package dev.quartermaster.agent.devices;
