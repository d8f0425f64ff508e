/**
 * The hostpath plugin on the wire: thin gRPC adapters over {@link
 * dev.quartermaster.csi.hostpath.HostpathPlugin} that only translate messages, and {@link
 * dev.quartermaster.csi.hostpath.grpc.HostpathServer}, which serves them (plus optional metrics).
 */
package dev.quartermaster.csi.hostpath.grpc;
