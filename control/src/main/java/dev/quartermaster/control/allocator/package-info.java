/**
 * The allocator: binds pending claims to healthy devices of ready nodes, never one device to two
 * live claims (I1), even with two allocators running at once — and whatever else writes to the
 * store.
 *
 * <h2>Why the claim's compare-and-set is not enough</h2>
 *
 * Two allocators that pick the same free device for two <em>different</em> claims each write their
 * own claim; both compare-and-sets succeed. They must meet on one object per node. Ours is the
 * node's allocation record, {@code nodeallocation/<node>} ({@link
 * dev.quartermaster.api.allocation.NodeAllocation}): a map device → holder (claim name and uid),
 * whose revision serializes every allocator's writes about that node.
 *
 * <h2>Why an object of its own</h2>
 *
 * Not labels on the {@code Node}: everything else that writes a node would write them too (an
 * operator's {@code qm apply} of the node with other labels would wipe them, a node deleted and
 * re-registered by its agent would come back empty), every heartbeat would conflict with the
 * allocator's compare-and-set, and labels would cap a node at about 60 devices. A {@code
 * NodeAllocation} is written by the allocator only (agents may not write it, see {@code
 * NodeScopedAccess}), outlives its node object, and is a plain map, so 2,048 IMEX channels cost two
 * short strings each.
 *
 * <h2>Protocol</h2>
 *
 * <ol>
 *   <li>Decide from the {@link dev.quartermaster.control.allocator.DeviceIndex} (informer-fed and
 *       ahead of the informers on our own writes, {@code InFlightCommits}; may be stale, but never
 *       older than an earlier view of it: it reads the caches under its own lock, {@code
 *       NodeCaches}).
 *   <li>Read the claims, the node, its record and its slices live; check every chosen device is
 *       free in the record or already held by the same claim uid (a reservation being resumed), and
 *       that a newly recorded one is still in the node's slices ({@code SliceCheck}).
 *   <li>Write, in one transaction ({@code ApiClient#commit}): the record with the new entries,
 *       compare-and-set on the revision just read (or created), and each claim's {@code
 *       status.allocation} with its node's agent finalizer (the node's hold starts here, so the
 *       agent needs no write of its own before it prepares), compare-and-set on the revision read
 *       in 2. A conflict (another allocator, a changed claim) means nothing of it landed: retry
 *       from the top. Nothing new to record (resuming): only the claims are written. Concurrent
 *       workers' decisions share one transaction ({@code GroupCommit}); if the shared one fails,
 *       each is committed on its own.
 * </ol>
 *
 * <p>Who does which step: the {@code Allocator} (a task's or a stand-alone claim's key) and the
 * {@code GangPlacer} (a gang's) are loops that read the caches, decide and write. Step 1 reads
 * nothing live: {@code DeviceIndex#place} walks the index's nodes in best-fit order, and the pure
 * functions {@code Resumption} (an attempt to finish) and {@code GangChoice} (a gang, over a
 * snapshot of the fleet) decide over what it shows; how a gang is packed is a {@code FitPolicy}'s.
 * Steps 2 and 3 are {@code AllocationWrite}'s, and {@code GangWrites}' for a gang; a decision that
 * places nothing parks its key ({@code AllocatorQueue}). No collaborator calls back into the {@code
 * Allocator}.
 *
 * <p>Entries for a claim that is still pending exist only where an allocator of an older version
 * wrote the record and crashed before its claim writes, or a claim's allocation was cleared (a
 * fence) after its entries were written; the next attempt (by any allocator) finds them and
 * <em>resumes</em>: it allocates exactly those devices, without writing the record again.
 *
 * <h2>Why it is exclusive</h2>
 *
 * Invariant R: every live claim whose allocation holds device d of node N is d's holder in N's
 * record. The record is a map, so with R no device is held by two live claims. R does not rest on
 * this protocol being followed: the store keeps it against every writer ({@code AllocationGuard} in
 * the store's registry), inside the write's own transaction:
 *
 * <ul>
 *   <li>a claim write whose allocation names a device the record does not give to its uid is
 *       refused (409 naming the holder) — a claim write succeeds only once the record gives it its
 *       devices: earlier in its own transaction, or in an earlier one;
 *   <li>a record write that drops or changes an entry of a live claim allocated that device is
 *       refused, so only entries of claims that are gone, pending or placed elsewhere go (the
 *       {@link dev.quartermaster.control.allocator.RecordCleaner}'s job);
 *   <li>a claim cannot be created with an allocation, and a node whose devices are held cannot be
 *       deleted (its record would survive anyway; the refusal says who holds what).
 * </ul>
 *
 * Each check compares the revisions of what it read in the same transaction as the write, so a
 * check and a concurrent write cannot interleave. The protocol above is what makes allocation
 * succeed (liveness); the store is what makes it exclusive.
 *
 * <p>A store written before records existed holds allocated claims and no record (the labels are
 * not migrated). {@code LegacyAdoption} migrates it, once per node: it records each device an
 * allocated claim names and no one holds, and until it has, step 2 does not hand out a device that
 * a cached allocated claim names (the decision waits for the adoption). From then on R holds for
 * them too, and the store keeps it, so the commit path never looks again.
 *
 * <p>The price: entries of a claim that lost a race (a second reservation elsewhere) or whose
 * allocation a fence cleared stay until the cleaner sees the claim placed elsewhere or gone. They
 * waste devices for a while; they never double-allocate one. A record stays after its node is
 * deleted for good (empty once its claims are gone).
 *
 * <h2>Bad input</h2>
 *
 * A request for a device class that does not exist, or for more matching devices than any node has
 * at all, gets {@code Allocated=False} with reason {@code NoSuchDeviceClass} or {@code
 * Unsatisfiable} and a message naming what was asked; one that some node could satisfy later gets
 * {@code WaitingForDevices}.
 *
 * <h2>Waiting</h2>
 *
 * A key (a task's claims, or a stand-alone claim) that gets no devices waits in one place, {@code
 * Waiters}, with the cluster events that could change that ({@code NoPlacement}: a missing compute
 * domain waits for domains, a missing class for classes, {@code Unsatisfiable} for nodes, slices
 * and classes, {@code WaitingForDevices} for any change of capacity; a fit only on a node being
 * committed to waits for that commit; a device named by a claim from before records for the node's
 * adoption). The event moves it back to the queue; so do changes to its own claims or task. A
 * decision takes a ticket before it reads, so an event between its failed fit and its park sends it
 * back at once rather than being lost.
 *
 * <h2>Gangs: all or nothing, in one decision</h2>
 *
 * A worker group with a {@code gang} is placed by its own key ({@code GangPlacer}): while none of
 * its members holds devices, the decision takes exactly {@code minMember} members and finds nodes
 * for all of them at once ({@code GangChoice}, {@code GangFit}: best fit by default, inside one
 * value of a required topology key); {@code AllocationWrite#commitGang} then writes, in
 * <em>one</em> transaction, every touched node's record with the new entries, every member's claims
 * and every member's pin and {@code Scheduled}. Each write is judged by the same guards as a single
 * task's (the records' compare-and-sets, {@code AllocationGuard} per claim), so a gang's decision
 * is exclusive for the same reasons as above, and it is atomic because it is one transaction: the
 * store shows the gang holding devices for all {@code minMember} members or for none (G1). Until
 * then a member's own key never chooses a node; it only finishes a reservation a gang decision left
 * (as a crashed single decision is resumed). A gang that does not fit holds nothing, so two gangs
 * can never each hold half of what they need and wait for each other: there is no partial state to
 * deadlock on (L2). Members beyond {@code minMember}, and replacements once the gang holds devices,
 * are placed one by one.
 *
 * <p>A workload with {@code spec.gang} is one gang over all its groups (a launcher and its workers,
 * parameter servers and workers), named {@code *} (key {@code gang/<workload>/*}; no group can take
 * that name). Which gangs a workload has, and each group's share of one, is read in one place,
 * {@code WorkloadGangs}, by this package, the workload controller, the CLI and the simulation
 * alike. Its decision is the same one decision: the first {@code minMember} ready members of
 * <em>each</em> group by ordinal, all in the one {@code commitGang} transaction, or nothing while
 * any group lacks its share or the whole does not fit; members may ask for different devices, which
 * {@code GangFit} places member by member. The gang holds devices as soon as any member of any of
 * its groups does, so every group's elastic members and replacements then go one by one, within the
 * gang's topology value. Every group of such a gang must ask for devices (validation): a member
 * without claims is the scheduler's, and the gang could neither hold it back nor count it.
 *
 * <p>The price is the transaction's size: records of the nodes touched plus two writes per member.
 * SQLite (single machine, {@code qm up}) takes any size, and there every gang is one transaction.
 * etcd takes 128 operations (64 puts here, see {@code EtcdStore}) and 1.5 MiB per request, so a
 * decision of more than 64 writes — about 21 members — cannot be one etcd transaction. Those go
 * through a reservation.
 *
 * <h2>The head of the line: a reservation, and backfill around it</h2>
 *
 * <p>A gang that does not fit waits holding nothing, and while it waits smaller jobs keep taking
 * whatever frees up: spread over every node, they can keep it waiting for as long as they keep
 * coming (issue 44: a 5 × 4-GPU gang waited out a whole stream of 1-GPU jobs with 8 to 10 of 24
 * GPUs busy). So the waiting gangs form a line ({@code HeadOfLine}: priority, then age), and its
 * head computes a {@code HeadReservation} at each of its decisions: the devices that free up
 * soonest by their holders' deadlines ({@code HolderEnds}, {@code TaskDeadlines}) and its start.
 * Every other decision — a task, a stand-alone claim, another gang — is made on the index with the
 * reserved devices shown held ({@code NodeView#closing}), unless it gives its devices back before
 * the start by its own deadline (plus its start and stop), so it cannot delay the head: it
 * backfills. The head's own decision sees them free.
 *
 * <p>Why the head is placed by its start: each holder of a reserved device ends by its deadline,
 * which the control plane enforces, or by the start (a backfilled job); nothing else may take a
 * reserved device. At the start every reserved device is free and the head fits. A reservation
 * computed again (on every change of capacity that wakes the head) starts no later: the earlier
 * one's devices are still free by its start, so that moment still fits. When a holder has no
 * deadline the start is never known; then nothing is reserved (it would idle the devices for ever),
 * the gang leaves the line and waits as before until that holder ends, and the next gang in line
 * may reserve.
 *
 * <p>The line is the allocator's memory, not the store's: a reservation promises a start, it holds
 * nothing, so no guard needs it and a crash loses nothing but the promise, which the new leader's
 * first decision for the gang makes again (from deadlines timed anew: the bound doubles across a
 * fail-over). A gang leaves the line at any decision that does not end waiting (placed, gone, never
 * fitting), and a workload, task or claim going queues every gang in line, so a deleted head does
 * not keep its reservation.
 *
 * <h2>Gangs larger than one transaction: one reservation, then bounded writes</h2>
 *
 * {@code GangPlacer} asks the client how many writes one commit may carry ({@code
 * ApiClient#writesPerCommit}, the store's limit) and counts the decision's: a record per node, and
 * per member its claims and its task. Within the limit it is one {@code commitGang} as above: one
 * transaction is fewer writes than the reservation's two plus its follow-ups, and G1 holds by
 * itself. Over it (or when a store whose limit the client cannot tell refuses the transaction as
 * too large), the decision is written as a {@link dev.quartermaster.api.allocation.GangReservation}
 * in the gang ledger ({@code gangledger/gangs}, {@link
 * dev.quartermaster.api.allocation.GangLedger}), carried out by {@code GangReservations}; its moves
 * (absent, {@code Proposed}, {@code Held}, removed) have one home, {@link
 * dev.quartermaster.api.allocation.ReservationTransitions}, which the store's guard asks too:
 *
 * <ol>
 *   <li><em>Propose</em>: one write adds the reservation — for each member its task, node, claims
 *       (name and uid) and devices — to the ledger. The store judges it against every other
 *       reservation (the same object, under its compare-and-set: exact), against the records of its
 *       nodes, and against the workload's spec generation (I4: the members' pins that follow carry
 *       no generation, the decision was judged here).
 *   <li><em>Hold</em>: a second write marks it {@code Held}; the store refuses that while any
 *       record gives one of its devices to another claim. Refused: the reservation is removed,
 *       nothing of the gang having been written, and the gang decides again.
 *   <li><em>Follow</em>: the members not written yet, a few per commit (as many as fit {@code
 *       writesPerCommit}; halved if the store refuses), each member's claims, its node's record
 *       entries and its pin and {@code Scheduled} together ({@code AllocationWrite#commitReserved},
 *       read live and judged as a gang's are), so a member is written whole or not at all.
 *   <li><em>Remove</em> the reservation once every member's claims hold their reserved devices.
 * </ol>
 *
 * <p>A 1,000-member gang of 8 GPUs each is one ledger entry of 477,938 bytes (measured by {@code
 * GangReservationGuardTest}): one put, under etcd's 1.5 MiB and the API's 1 MiB per body; its
 * follow-ups are about 1,000 × (1 claim + 1 task + 1 record) / 64 ≈ 47 etcd transactions.
 *
 * <h3>Why it is exclusive</h3>
 *
 * The store counts a reservation's devices as held ({@code GangReservationGuard}, beside {@code
 * AllocationGuard}): device d of node N is held by claim uid u when N's record gives it to u or a
 * reservation reserves it for u. A record entry and a reservation naming the same uid for the same
 * device are one holding, not two — that is how a member's follow-up passes while its reservation
 * still stands, and why nothing is counted twice while both exist; any other uid is refused (409
 * naming the gang): a record write adding or changing such an entry, a claim write whose new
 * allocation names such a device, a second reservation of it. Every record and claim write that
 * adds a holding compares the ledger's revision, so a reservation committed between the write's
 * check and its transaction makes the transaction fail and the check run again. One ledger, not an
 * object per gang, for exactly this: a write that could take a reserved device compares one key,
 * however many gangs are in flight (an object per gang would need a compare over a range of keys,
 * which neither the store's transactions nor etcd's Java client offer).
 *
 * <p>The other direction cannot be one transaction: the proposal would have to compare every record
 * of up to a thousand nodes, and a transaction takes 128 compares. So the proposal's check of the
 * records is taken as a hint, and the {@code Held} check decides. That one needs no compares: once
 * the proposal is in, no record can gain an entry for one of its devices for another claim (the
 * previous paragraph), so entries it reads for them can only go, never come. A record write that
 * raced the proposal is found there, and the reservation removed.
 *
 * <h3>Why it is atomic (G1)</h3>
 *
 * At the {@code Held} write, the store shows the gang holding the devices of all {@code minMember}
 * members at once: the reservation holds every one, exclusively, and keeps holding each until the
 * member's own record entry and claim (the same holding) are in. Before it, the gang holds nothing
 * of its own: no claim of it is allocated and no entry of it recorded. A {@code Proposed}
 * reservation keeps others off its devices only until its own gang's key checks it — made {@code
 * Held} or removed, never waiting for another gang's devices — so two gangs still cannot each hold
 * half of what they need and wait for each other (L2). Members of a gang with a reservation in
 * flight wait with their gang ({@code Standing.WithGang}) rather than being placed on their own.
 *
 * <h3>Why a crash mid-way loses nothing</h3>
 *
 * The ledger is the decision, durable from its commit. Every step starts from the live ledger and
 * the live members, and writes only what is missing: a member whose claims hold their reserved
 * devices is skipped, a record entry already there is not written again (the plan resumes it), the
 * {@code Held} mark is not written twice. An allocator that crashes or loses leadership anywhere
 * leaves a reservation some of whose members are written; the next leader's ledger informer lists
 * it and queues the gang, whose key carries out its reservation before making any other decision.
 * Meanwhile the reservation holds the devices of the members not written, so the gang never ends
 * with part of it placed and the rest lost.
 *
 * <h3>Cancellation</h3>
 *
 * The gang's key removes a reservation that can no longer be carried out: its workload gone
 * (deleted, or re-created under the name), or a member not yet written whose task or claim is gone
 * or changed (a gang restarted by {@code RestartGang} deletes its tasks, and their claims go with
 * them), or a claim allocated other devices. A workload, task or claim going queues every gang in
 * the ledger, so the removal does not wait for anything else. Removing it gives back every device
 * it held for members not written. Members already written hold their devices as any placed member
 * does: when their claims are deleted too, the {@code RecordCleaner} drops their entries as before;
 * when they live on (one member deleted by hand), the gang is a placed gang short of a member,
 * whose replacement is placed one by one.
 *
 * <p>The price: two writes more than one transaction (propose, hold) and one to remove; the ledger
 * read and compared by every record and claim write that adds a holding (one key, decoded once per
 * revision); the records of the gang's nodes read twice by the store. The {@code DeviceIndex}
 * counts reserved devices as taken once the ledger's informer delivers the reservation (not as
 * record entries of their claims: no member resumes one before its gang holds it); until then
 * another decision may pick one, and loses at the store (409) and decides again. A proposal that
 * raced a record write is removed and decided again. Large gangs in flight at once share one object
 * and serialize their ledger writes: about two 1,000 × 8 reservations fit the API's 1 MiB at a
 * time; a third waits until one is carried out. One member must fit one transaction on its own (its
 * claims, its task and its node's record), and a reservation one request (about 2,000 members of 8
 * GPUs under the API's 1 MiB); a gang that does not is refused as {@code GangTooLarge}, saying so
 * on its claims.
 */
package dev.quartermaster.control.allocator;
