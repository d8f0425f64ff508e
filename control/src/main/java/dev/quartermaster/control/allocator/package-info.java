/**
 * The allocator: binds pending claims to healthy devices of ready nodes, never one device to two
 * live claims (I1), even with two allocators running at once.
 *
 * <h2>Why the claim's compare-and-set is not enough</h2>
 * Two allocators that pick the same free device for two <em>different</em> claims each write their
 * own claim; both compare-and-sets succeed. They must meet on one object. Ours is the chosen node:
 * its {@link dev.quartermaster.control.allocator.NodeLedger ledger} (labels {@code
 * alloc.quartermaster.dev/<device>=<claim-uid>}) records who holds each device, and the node's
 * revision serializes every allocator's writes about that node.
 *
 * <h2>Protocol</h2>
 * <ol>
 *   <li>Decide from the {@link dev.quartermaster.control.allocator.DeviceIndex} (informer-fed; may be
 *       stale).
 *   <li>Read the claims and the node live; check every chosen device is free in the live ledger or
 *       already reserved for the same claim uid.
 *   <li>Write the node with the new entries, compare-and-set on the revision just read. A conflict
 *       (another allocator, or just a heartbeat) means: retry from the top.
 *   <li>Write each claim's {@code status.allocation}, compare-and-set on the revision read in 2.
 * </ol>
 * A crash or a lost race between 3 and 4 leaves entries for a claim that is still pending; the
 * next attempt (by any allocator) finds them and <em>resumes</em>: it allocates exactly those
 * devices, without writing the ledger again.
 *
 * <h2>Why it is exclusive</h2>
 * Invariant L: every live claim whose allocation holds device d of node N has the ledger entry
 * N: d → its uid. Step 4 runs only after step 3 (or 2, when resuming) saw that entry. Entries are
 * removed only by the {@link dev.quartermaster.control.allocator.LedgerCleaner}, and only for claims
 * that are gone — which never come back (uids are unique and claim writes compare revisions), so no
 * step 4 still in flight can land. A ledger is a map, so a device has at most one entry; with L,
 * no device is held by two live claims.
 *
 * <p>The price: entries of a claim that lost a race (a second reservation elsewhere) or whose
 * allocation a fence cleared stay until the claim is deleted. They waste devices for a while; they
 * never double-allocate one. Known limits: a node can record about 60 devices (the API's label
 * limit); agents must keep these labels when they update their node; a node object deleted and
 * created again loses its ledger, so node objects must not be re-created while claims hold
 * devices there.
 *
 * <h2>Bad input</h2>
 * A request for a device class that does not exist, or for more matching devices than any node has
 * at all, gets {@code Allocated=False} with reason {@code NoSuchDeviceClass} or {@code
 * Unsatisfiable} and a message naming what was asked; one that some node could satisfy later gets
 * {@code WaitingForDevices}. Such claims are retried when nodes, slices or device classes change.
 */
package dev.quartermaster.control.allocator;
