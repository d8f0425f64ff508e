package dev.quartermaster.store.registry;

import dev.quartermaster.api.allocation.DeviceHolder;
import dev.quartermaster.api.allocation.GangLedger;
import dev.quartermaster.api.allocation.GangLedgerSpec;
import dev.quartermaster.api.allocation.GangLedgerSpec.Reserved;
import dev.quartermaster.api.allocation.GangReservation;
import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.allocation.NodeAllocationSpec;
import dev.quartermaster.api.allocation.ReservationTransitions;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.device.use.Clash;
import dev.quartermaster.api.device.use.Holders;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.store.KeyValue;
import dev.quartermaster.store.Txn.Compare;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The gang ledger's reservations hold devices as records do (I1 with gangs larger than one
 * transaction; the argument is the allocator's {@code package-info}). A device of node N is held by
 * claim uid u if N's record gives it to u <em>or</em> a reservation of the ledger reserves it for
 * u; the two are the same holding when they name the same uid (a member's record entry written
 * after its reservation), never two. Refused, atomically with the write:
 *
 * <ul>
 *   <li>a record write that adds or changes an entry for a device a reservation holds for another
 *       claim, and a claim write whose new allocation names one — each compares the ledger's
 *       revision, so a reservation committed after the check makes the write fail and be judged
 *       again;
 *   <li>a reservation added to the ledger that names a device another reservation holds, or one a
 *       record gives to another claim, or that is written {@code Held} at once, or whose workload
 *       is at another spec generation than it was decided on;
 *   <li>a reservation changed other than by a move of {@link ReservationTransitions} (from {@code
 *       Proposed} to {@code Held}); that move is refused while a record gives one of its devices to
 *       another claim.
 * </ul>
 *
 * The proposal's check of the records compares none of them (a gang spans up to a thousand nodes; a
 * transaction takes 128 compares): a record write that committed between that check and the
 * proposal is not seen by it. The {@code Held} check is exact without compares: once the proposal
 * is in, no record can gain an entry for one of its devices for another claim (first point), so the
 * entries it reads for them can only go, never come. Removing a reservation is never refused: it
 * only gives devices back.
 */
final class GangReservationGuard implements WriteRules {
  static final String LEDGER = StoredObjects.key(Kinds.GANG_LEDGER, GangLedger.NAME);
  private static final int NAMED = 5;

  private final StoredObjects stored;
  private final NodeDeviceUse uses;

  /** The last ledger spec indexed by node, reused while the ledger is unchanged. */
  private volatile Indexed indexed = new Indexed(GangLedgerSpec.EMPTY, Map.of());

  private record Indexed(GangLedgerSpec spec, Map<String, Map<String, Reserved>> byNode) {}

  GangReservationGuard(StoredObjects stored, NodeDeviceUse uses) {
    this.stored = stored;
    this.uses = uses;
  }

  @Override
  public List<Compare> beforeCreate(Reads reads, ApiObject next) {
    return switch (next) {
      case NodeAllocation a ->
          recordWrite(reads, a.metadata().name(), NodeAllocationSpec.EMPTY, a.spec());
      case GangLedger l -> ledgerWrite(reads, GangLedgerSpec.EMPTY, l.spec());
      default -> List.of();
    };
  }

  @Override
  public List<Compare> beforeWrite(Reads reads, ApiObject current, ApiObject next) {
    return switch (next) {
      case ResourceClaim c ->
          ((ResourceClaim) current).status().allocation().equals(c.status().allocation())
              ? List.of()
              : claimWrite(reads, c);
      case NodeAllocation a ->
          recordWrite(reads, a.metadata().name(), ((NodeAllocation) current).spec(), a.spec());
      case GangLedger l -> ledgerWrite(reads, ((GangLedger) current).spec(), l.spec());
      default -> List.of();
    };
  }

  private List<Compare> recordWrite(
      Reads reads, String node, NodeAllocationSpec current, NodeAllocationSpec next) {
    var added = new HashMap<String, DeviceHolder>();
    next.devices()
        .forEach(
            (device, holder) -> {
              if (current.holder(device).filter(holder::equals).isEmpty()) {
                added.put(device, holder);
              }
            });
    if (added.isEmpty()) {
      return List.of(); // dropping entries only gives devices back
    }
    var kv = reads.get(LEDGER);
    var reserved = byNode(kv).getOrDefault(node, Map.of());
    if (reserved.isEmpty()) {
      return List.of(ledgerCompare(kv)); // the record alone is AllocationGuard's to judge
    }
    var judged = uses.of(reads, node);
    var held = holders(reserved).or(Holders.of(next.devices()));
    var taken = new ArrayList<String>();
    added.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            e ->
                judged
                    .use()
                    .clash(e.getKey(), e.getValue(), held)
                    .ifPresent(c -> taken.add(reservedFor(c, "", reserved))));
    if (!taken.isEmpty()) {
      throw new ApiException(
          Reason.Conflict,
          "nodeallocation/"
              + node
              + ": spec.devices: "
              + first(taken)
              + "; a gang's reservation holds its devices until its members' entries are in");
    }
    var compares = new ArrayList<>(judged.compares());
    compares.add(ledgerCompare(kv));
    return compares;
  }

  private List<Compare> claimWrite(Reads reads, ResourceClaim claim) {
    if (claim.status().allocation().isEmpty()) {
      return List.of();
    }
    var allocation = claim.status().allocation().get();
    var kv = reads.get(LEDGER);
    var reserved = byNode(kv).getOrDefault(allocation.node(), Map.of());
    if (reserved.isEmpty()) {
      return List.of(ledgerCompare(kv));
    }
    var judged = uses.of(reads, allocation.node());
    var mine = new DeviceHolder(claim.metadata().name(), claim.metadata().uid());
    for (var d : allocation.devices()) {
      var clash = judged.use().clash(d.device(), mine, holders(reserved));
      if (clash.isPresent()) {
        throw new ApiException(
            Reason.Conflict,
            claim.ref()
                + ": status.allocation: "
                + reservedFor(clash.get(), " on node " + allocation.node(), reserved));
      }
    }
    var compares = new ArrayList<>(judged.compares());
    compares.add(ledgerCompare(kv));
    return compares;
  }

  private List<Compare> ledgerWrite(Reads reads, GangLedgerSpec current, GangLedgerSpec next) {
    var records = new HashMap<String, NodeAllocationSpec>();
    var compares = new ArrayList<Compare>();
    for (var e : next.reservations().entrySet()) {
      var key = e.getKey();
      var r = e.getValue();
      var before = current.reservation(key);
      var refused = ReservationTransitions.refusal(before, r);
      if (refused.isPresent()) {
        throw invalid(key, refused.get().field(), refused.get().text());
      }
      if (before.isEmpty()) {
        apartFromOthers(reads, key, r, next, compares);
        againstRecords(reads, key, r, records, compares);
        compares.add(decidedOnSpec(reads, key, r));
      } else if (ReservationTransitions.checksRecords(before, r)) {
        againstRecords(reads, key, r, records, compares);
      }
    }
    // Beyond the workloads' compares, the ledger's own compare-and-set orders every change of it.
    return compares;
  }

  /**
   * I4 for a gang's decision: it was made on workload spec {@code generation}, and is refused once
   * the live workload (the same one, not being deleted) is at another, atomically (the workload's
   * revision joins the write): a gang reserved on a spec scaled meanwhile would hold devices for
   * the wrong number of members. The members' pins that follow carry no generation of their own.
   */
  private Compare decidedOnSpec(Reads reads, String key, GangReservation r) {
    var workloadKey = StoredObjects.key(Kinds.WORKLOAD, r.workload());
    var kv = reads.get(workloadKey);
    if (kv.isEmpty()) {
      return new Compare.ModRevision(workloadKey, 0);
    }
    var w = stored.decode(Kinds.WORKLOAD, kv.get());
    if (w.metadata().uid().equals(r.workloadUid())
        && !w.metadata().isDeleting()
        && w.metadata().generation() != r.generation()) {
      throw new ApiException(
          Reason.Conflict,
          "gangledger/"
              + GangLedger.NAME
              + ": reservation "
              + key
              + " was decided on generation "
              + r.generation()
              + " of "
              + w.ref()
              + ", which is now at generation "
              + w.metadata().generation()
              + "; the allocator decides again on the newest spec");
    }
    return new Compare.ModRevision(workloadKey, kv.get().modRevision());
  }

  /**
   * No device of {@code r} twice, and none that another reservation of {@code ledger} holds, or
   * that over-consumes a shared counter with what they and {@code r} hold.
   */
  private void apartFromOthers(
      Reads reads, String key, GangReservation r, GangLedgerSpec ledger, List<Compare> compares) {
    var mine = new TreeMap<String, Map<String, Reserved>>();
    for (var d : r.devices()) {
      if (mine.computeIfAbsent(d.node(), n -> new HashMap<>())
              .put(d.device(), new Reserved(key, d.holder()))
          != null) {
        throw invalid(
            key,
            "members",
            "device " + d.device() + " on node " + d.node() + " is reserved twice in it");
      }
    }
    var others = new HashMap<>(ledger.reservations());
    others.remove(key);
    var reserved = new GangLedgerSpec(others).byNode();
    var taken = new ArrayList<String>();
    mine.forEach(
        (node, devices) -> {
          var judged = uses.of(reads, node);
          compares.addAll(judged.compares());
          var theirs = reserved.getOrDefault(node, Map.of());
          Holders<Reserved> held = Holders.<Reserved>of(theirs).or(Holders.of(devices));
          devices.entrySet().stream()
              .sorted(Map.Entry.comparingByKey())
              .forEach(
                  e ->
                      judged
                          .use()
                          .clash(e.getKey(), e.getValue(), held)
                          .ifPresent(
                              c ->
                                  taken.add(
                                      c.over().isEmpty()
                                          ? "device "
                                              + c.device()
                                              + " on node "
                                              + node
                                              + " is reserved for "
                                              + c.heldBy()
                                          : c.describe(" on node " + node))));
        });
    if (!taken.isEmpty()) {
      throw new ApiException(
          Reason.Conflict,
          "gangledger/" + GangLedger.NAME + ": reservation " + key + ": " + first(taken));
    }
  }

  /**
   * Every device of {@code r} free in its node's record, or given to the claim it is reserved for.
   */
  private void againstRecords(
      Reads reads,
      String key,
      GangReservation r,
      Map<String, NodeAllocationSpec> records,
      List<Compare> compares) {
    var taken = new ArrayList<String>();
    var judged = new HashMap<String, NodeDeviceUse.Judged>();
    for (var d : r.devices()) {
      var record =
          records.computeIfAbsent(
              d.node(),
              n ->
                  reads
                      .get(StoredObjects.key(Kinds.NODE_ALLOCATION, n))
                      .map(x -> stored.decode(Kinds.NODE_ALLOCATION, x).spec())
                      .orElse(NodeAllocationSpec.EMPTY));
      var use =
          judged.computeIfAbsent(
              d.node(),
              n -> {
                var j = uses.of(reads, n);
                compares.addAll(j.compares());
                return j;
              });
      use.use()
          .clash(d.device(), d.holder(), Holders.of(record.devices()))
          .ifPresent(c -> taken.add(c.describe(" on node " + d.node())));
    }
    if (!taken.isEmpty()) {
      throw new ApiException(
          Reason.Conflict,
          "gangledger/" + GangLedger.NAME + ": reservation " + key + ": " + first(taken));
    }
  }

  /** The claims that {@code reserved} (device → reservation) holds devices for. */
  private static Holders<DeviceHolder> holders(Map<String, Reserved> reserved) {
    return Holders.of(reserved, Reserved::holder);
  }

  /** What {@code c} says, naming the gang whose reservation holds the device it clashes with. */
  private static String reservedFor(
      Clash<DeviceHolder> c, String where, Map<String, Reserved> reserved) {
    var gang = Optional.ofNullable(reserved.get(c.heldDevice())).map(Reserved::gang);
    if (c.over().isEmpty() && gang.isPresent()) {
      return "device "
          + c.device()
          + where
          + " is reserved for gang "
          + gang.get()
          + ", "
          + c.heldBy();
    }
    return c.describe(where) + gang.map(g -> " (reserved for gang " + g + ")").orElse("");
  }

  /** Node → device → the reservation holding it, for the ledger stored as {@code kv}. */
  private Map<String, Map<String, Reserved>> byNode(Optional<KeyValue> kv) {
    if (kv.isEmpty()) {
      return Map.of();
    }
    var spec = stored.decode(Kinds.GANG_LEDGER, kv.get()).spec();
    var last = indexed;
    if (last.spec() == spec || last.spec().equals(spec)) {
      return last.byNode();
    }
    var fresh = new Indexed(spec, spec.byNode());
    indexed = fresh;
    return fresh.byNode();
  }

  private static Compare ledgerCompare(Optional<KeyValue> kv) {
    return new Compare.ModRevision(LEDGER, kv.map(KeyValue::modRevision).orElse(0L));
  }

  private static ApiException invalid(String key, String field, String rule) {
    return ApiException.invalid(
        "gangledger/" + GangLedger.NAME,
        List.of(new Violation("spec.reservations." + key + "." + field, rule)));
  }

  private static String first(List<String> items) {
    var shown = String.join("; ", items.subList(0, Math.min(NAMED, items.size())));
    return items.size() > NAMED ? shown + "; and " + (items.size() - NAMED) + " more" : shown;
  }
}
