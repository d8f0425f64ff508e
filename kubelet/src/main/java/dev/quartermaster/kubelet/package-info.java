/**
 * Quartermaster as a Kubernetes DRA driver on a node: the kubelet plugin.
 *
 * <p>A module of its own, not a package inside {@code agent}, because it is another way to run the
 * same node-side claim path, not part of {@code qm agent}: it depends on the agent (its {@code
 * ClaimLedger}, durable journal, discovery, CDI writer and {@code ClaimPreparer} are used as they
 * are, so the kubelet gets exactly the agent's rules) and adds only what the kubelet needs — its
 * own wire protocols (plugin registration and the DRA services {@code v1} and {@code v1beta1},
 * compiled from {@code src/main/protobuf} as the CSI protocol is in {@code csi}), and the mapping
 * from the kubelet's claims to the ledger's. Keeping the protos here keeps the agent free of
 * Kubernetes' wire types.
 *
 * <ul>
 *   <li>{@code claims}: the kubelet's view of a claim, and where its allocated devices come from.
 *   <li>{@code prepare}: NodePrepareResources / NodeUnprepareResources through the agent's ledger.
 *   <li>{@code grpc}: the gRPC services (registration, DRA v1, DRA v1beta1) and their wire mapping.
 *   <li>{@code plugin}: the process — state directory, ledger, devices and the two sockets.
 * </ul>
 */
package dev.quartermaster.kubelet;
