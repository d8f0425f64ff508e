/**
 * NodePrepareResources and NodeUnprepareResources through the agent's claim ledger ({@link
 * dev.quartermaster.kubelet.prepare.DraPreparer}): the kubelet's claims mapped onto the agent's
 * {@code ClaimPreparer}, so the kubelet plugin and {@code qm agent} refuse, repeat and tombstone
 * exactly alike.
 *
 * <p>CDI: the agent's {@code CdiSpecWriter} writes each prepared claim's spec (vendor {@code
 * quartermaster.dev}, device {@code <claim-uid>-<device>}), and each device in the response carries
 * the id of its own CDI device. The spec directory must be one the container runtime reads ({@code
 * /etc/cdi} or {@code /var/run/cdi}).
 *
 * <p>Not yet: compute domains (a Kubernetes claim does not carry one until its opaque device
 * configuration is read; {@code NoComputeDomains} refuses any), and a periodic device rescan (each
 * kubelet call looks again).
 */
package dev.quartermaster.kubelet.prepare;
