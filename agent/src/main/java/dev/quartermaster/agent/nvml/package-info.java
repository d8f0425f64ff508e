/**
 * NVML ({@code libnvidia-ml.so.1}) through Java's foreign-function API: {@link
 * dev.quartermaster.agent.nvml.NvmlLibrary} binds the calls (init, count, handle by index, UUID,
 * minor, name, memory, PCI info, XID events, shutdown) with the C signatures of NVIDIA's header;
 * {@link dev.quartermaster.agent.nvml.NvmlDiscovery} is the NVML discovery backend and {@link
 * dev.quartermaster.agent.nvml.NvmlXidMonitor} feeds health from XID events. Where the library is
 * absent every entry point answers "unavailable" with the reason; nothing here crashes the agent.
 */
package dev.quartermaster.agent.nvml;
