/**
 * The kubelet's gRPC services, served by the plugin: plugin registration ({@link
 * dev.quartermaster.kubelet.grpc.RegistrationService}) and DRA {@code v1} and {@code v1beta1}
 * ({@link dev.quartermaster.kubelet.grpc.DraV1Service}, {@link
 * dev.quartermaster.kubelet.grpc.DraV1beta1Service}), each only a mapping between the wire types
 * (generated from this module's protos) and {@code prepare}'s plain ones.
 */
package dev.quartermaster.kubelet.grpc;
