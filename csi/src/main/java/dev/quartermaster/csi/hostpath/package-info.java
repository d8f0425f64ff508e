/**
 * The built-in CSI plugin, {@code hostpath.csi.quartermaster.dev}: volumes are directories under a
 * state directory. The logic ({@link dev.quartermaster.csi.hostpath.HostpathPlugin}) uses no gRPC
 * types, so it runs in-process as a {@link dev.quartermaster.csi.plugin.CsiPlugin} or behind the
 * thin adapters of {@code dev.quartermaster.csi.hostpath.grpc}.
 */
package dev.quartermaster.csi.hostpath;
