/**
 * CDI (Container Device Interface), the one model of it in the agent: {@link
 * dev.quartermaster.agent.cdi.CdiDeviceNode} and {@link dev.quartermaster.agent.cdi.ContainerEdits}
 * are what {@link dev.quartermaster.agent.cdi.CdiSpecWriter} writes (one spec per prepared claim,
 * vendor {@code quartermaster.dev}, device names {@code <claim-uid>-<device>}, the GPU node per
 * device and the control nodes at spec level, minimum {@code cdiVersion}, written atomically and
 * removed on unprepare) and what {@link dev.quartermaster.agent.cdi.CdiResolver} reads back, as a
 * container runtime would, for the task runtimes' device checks. The environment a container is
 * told about its devices is a contract of its own, {@link
 * dev.quartermaster.agent.cdi.DeviceVariables}: per-device entries in the specs (CDI cannot compose
 * a value over several devices), and the composed values the runtimes set from exactly the devices
 * they inject.
 */
package dev.quartermaster.agent.cdi;
