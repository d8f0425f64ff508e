/**
 * Device use: the one answer, for every layer, to "may this claim hold this device of this node"
 * ({@link dev.quartermaster.api.device.use.DeviceUse}).
 *
 * <p>The model is Kubernetes DRA's partitionable devices (KEP-4815). A node's slice may declare
 * counter sets ({@code sharedCounters}: MIG-capable {@code gpu-0} has 7 compute and 8 memory
 * slices), and each device what it consumes of them while held ({@code consumesCounters}: the whole
 * GPU all of them, a {@code 1g} slice one of each). Every device also has a counter of its own, one
 * of it, that only it consumes. A device with no declared consumption — every device today, whole
 * GPUs and IMEX channels — is exactly that: held by one claim, free otherwise.
 *
 * <p>I1 is then one statement: <em>no counter of a node is over-consumed by the devices its live
 * claims hold</em>. Its own counter gives "no device held by two claims"; a shared counter gives
 * "{@code gpu-0} and {@code gpu-0-mig-1g-0} are not both held", which two device names as map keys
 * could not say. The store's guards, the allocator's fit, the gang reservations, the agent's ledger
 * and the simulation's judge all ask this package, each over the holdings it keeps ({@link
 * dev.quartermaster.api.device.use.Holders}, a view of its own map: nothing is copied).
 *
 * <p>Cost: for a node whose devices declare no counters ({@link
 * dev.quartermaster.api.device.use.DeviceUse#WHOLE_DEVICES}) each question is one lookup in the
 * caller's map, what it cost before. With counters, a question about a device reads the holders of
 * the devices that share its counters (a GPU's few slices), never the whole node.
 */
package dev.quartermaster.api.device.use;
