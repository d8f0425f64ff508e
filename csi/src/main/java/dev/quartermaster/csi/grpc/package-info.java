/**
 * CSI over gRPC on a Unix socket: the client ({@link dev.quartermaster.csi.grpc.GrpcCsiPlugin}),
 * the server ({@link dev.quartermaster.csi.grpc.CsiServer}) and the mapping between the wire types
 * of {@code dev.quartermaster.csi.v1} and the plain ones of {@code dev.quartermaster.csi.plugin}.
 */
package dev.quartermaster.csi.grpc;
