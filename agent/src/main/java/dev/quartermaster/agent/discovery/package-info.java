/**
 * GPU discovery: every backend gives the same {@link
 * dev.quartermaster.agent.discovery.DiscoveryResult} (GPUs named {@code gpu-<index>} with uuid,
 * model, memory, minor, PCI bus id and their checked {@code /dev/nvidia<minor>} node), or says why
 * it cannot look. IMEX channels are found apart, from the files whatever the GPU backend ({@link
 * dev.quartermaster.agent.discovery.ImexChannels}: {@code
 * /dev/nvidia-caps-imex-channels/channel<N>}, major from {@code nvidia-caps-imex-channels} in
 * {@code /proc/devices}), named {@code channel-<N>}.
 *
 * <ul>
 *   <li>NVML through the foreign-function API: {@code dev.quartermaster.agent.nvml}.
 *   <li>{@link dev.quartermaster.agent.discovery.ProcGpuDiscovery}: {@code
 *       /proc/driver/nvidia/gpus/*}{@code /information}, {@code /proc/devices} (both {@code nvidia}
 *       and {@code nvidia-frontend} name major 195; {@code nvidia-uvm} is dynamic) and {@code
 *       /dev/nvidia<minor>}, under a configurable root: {@code /} on a real host.
 *   <li>{@link dev.quartermaster.agent.discovery.SimulatedDeviceRoot}: the same layout under a
 *       directory, for simulated nodes and tests, read by the same /proc backend.
 * </ul>
 *
 * <h2>Stand-in devices of simulated roots</h2>
 *
 * A simulated root's nodes are real character devices (made with {@code mknod}) whose numbers are
 * those of harmless misc devices the host already has: fuse 10:229, autofs 10:235, loop-control
 * 10:237, btrfs-control 10:234, then userfaultfd, vsock, vga_arbiter, kvm, hw_random, whichever
 * {@code /proc/misc} lists ({@link dev.quartermaster.agent.discovery.StandIns}). They can be opened
 * read-only without any capability, opening them changes nothing, and none is in runc's default
 * device allowlist, so a container opens one only when its spec lists it: a missing node fails with
 * "Operation not permitted", as NVIDIA's do. The numbers are recorded in {@code
 * <root>/sim/stand-ins} (IMEX channel nodes too, sharing them round-robin with the GPUs) and checks
 * expect them there ({@link dev.quartermaster.agent.discovery.Numbering}). Without {@code mknod}
 * (not root) the nodes fall back to regular files, and the root says so.
 */
package dev.quartermaster.agent.discovery;
