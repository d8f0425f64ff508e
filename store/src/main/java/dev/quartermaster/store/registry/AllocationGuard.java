package dev.quartermaster.store.registry;

import dev.quartermaster.api.allocation.DeviceHolder;
import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.allocation.NodeAllocationSpec;
import dev.quartermaster.api.claim.Allocation.AllocatedDevice;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.use.Clash;
import dev.quartermaster.api.device.use.Holders;
import dev.quartermaster.api.device.use.Holding;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.store.Txn.Compare;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * I1 in the store, whoever writes (allocator, agent, an operator with curl): no counter of a node
 * is over-consumed by the devices its live claims hold ({@code dev.quartermaster.api.device.use});
 * for devices that declare no shared counters, no device is held by two live claims. It keeps one
 * invariant, R: every live claim whose {@code status.allocation} names device d of node N is the
 * holder of d in {@code nodeallocation/N}. A record is a map, so R gives each device one holder;
 * its entries are further judged by the node's {@link NodeDeviceUse}, so R gives I1. R and that
 * judgement are kept by refusing, atomically with the write:
 *
 * <ul>
 *   <li>a record write whose new entries, with the record's others, over-consume a shared counter
 *       (a claim given {@code gpu-0} while another holds its slice {@code gpu-0-mig-1g-0}); and a
 *       slice that declares counters the node's record already over-consumes;
 *   <li>a claim write whose allocation names a device the record does not give to that claim's uid;
 *   <li>a record write or delete that drops or changes an entry whose claim is live and allocated
 *       that device (entries of claims that are gone, pending or placed elsewhere may go);
 *   <li>deleting a node whose record still holds devices of live allocated claims: its tasks run
 *       there, and the operator should see who holds what, not lose it.
 * </ul>
 *
 * A claim created with an allocation is refused outright (422): its uid is new, so no record can
 * give it a device; only the allocator binds claims, through their status. A claim write that keeps
 * the stored allocation is not checked again (R held when it was stored, and record writes keep
 * it): the agent's frequent prepare-state writes do not read a record of thousands of entries.
 */
final class AllocationGuard implements WriteRules {
  private static final int NAMED = 5;

  private final StoredObjects stored;
  private final NodeDeviceUse uses;

  AllocationGuard(StoredObjects stored, NodeDeviceUse uses) {
    this.stored = stored;
    this.uses = uses;
  }

  @Override
  public List<Compare> beforeCreate(Reads reads, ApiObject next) {
    if (next instanceof NodeAllocation a) {
      return counters(reads, a.metadata().name(), NodeAllocationSpec.EMPTY, a.spec());
    }
    if (next instanceof DeviceSlice s) {
      return sliceWrite(reads, s);
    }
    if (next instanceof ResourceClaim c && c.status().allocation().isPresent()) {
      throw ApiException.invalid(
          c.ref(),
          List.of(
              new Violation(
                  "status.allocation",
                  "must be empty when a claim is created: only the allocator binds a claim, after recording its devices in the node's NodeAllocation")));
    }
    return List.of();
  }

  @Override
  public List<Compare> beforeWrite(Reads reads, ApiObject current, ApiObject next) {
    return switch (next) {
      case ResourceClaim c ->
          ((ResourceClaim) current).status().allocation().equals(c.status().allocation())
              ? List.of() // R holds for the stored claim, so an allocation the write keeps needs no
              // check
              : claimWrite(reads, c);
      case NodeAllocation a -> {
        var compares = new ArrayList<>(recordWrite(reads, (NodeAllocation) current, a.spec()));
        compares.addAll(
            counters(reads, a.metadata().name(), ((NodeAllocation) current).spec(), a.spec()));
        yield compares;
      }
      case DeviceSlice s -> sliceWrite(reads, s);
      default -> List.of();
    };
  }

  /**
   * The entries {@code next} adds to {@code current}, judged with the rest of {@code next} by the
   * node's device use (dropping entries only gives counters back). On a node that shares no
   * counters the record is a map, and only parts held beside their whole are looked for.
   */
  private List<Compare> counters(
      Reads reads, String node, NodeAllocationSpec current, NodeAllocationSpec next) {
    var judged = uses.of(reads, node);
    if (judged.use().sharesCounters()) {
      var held = Holders.of(next.devices());
      var clashes = new ArrayList<String>();
      next.devices().entrySet().stream()
          .filter(e -> current.holder(e.getKey()).filter(e.getValue()::equals).isEmpty())
          .sorted(Map.Entry.comparingByKey())
          .forEach(
              e ->
                  judged
                      .use()
                      .clash(e.getKey(), e.getValue(), held)
                      .ifPresent(
                          c -> clashes.add(c.describe() + ", not free for " + e.getValue())));
      if (!clashes.isEmpty()) {
        throw new ApiException(
            Reason.Conflict, "nodeallocation/" + node + ": spec.devices: " + first(clashes));
      }
    }
    // Also where the slice relates nothing: a part held from before a mode change and the GPU
    // offered whole again are one GPU by their names. One pass over the record, which the filter
    // above walks anyway; a clash the record had before this write is not this write's.
    var parted =
        uses.partsJudged()
            ? judged.use().partWithWhole(next.devices())
            : Optional.<Clash<DeviceHolder>>empty();
    if (parted.isPresent() && judged.use().partWithWhole(current.devices()).isEmpty()) {
      throw new ApiException(
          Reason.Conflict,
          "nodeallocation/"
              + node
              + ": spec.devices: "
              + parted.get().describe()
              + ", not free for "
              + parted.get().holder());
    }
    if (!judged.use().sharesCounters()) {
      return List.of();
    }
    return judged.compares();
  }

  /**
   * A slice that declares shared counters must not be over-consumed by the holdings its node's
   * record has now; one that declares none is judged by nothing but the record's map.
   */
  private List<Compare> sliceWrite(Reads reads, DeviceSlice slice) {
    var use = uses.declared(slice.spec());
    if (!use.sharesCounters()) {
      return List.of();
    }
    var node = slice.metadata().name();
    var key = StoredObjects.key(Kinds.NODE_ALLOCATION, node);
    var kv = reads.get(key);
    var record =
        kv.map(x -> stored.decode(Kinds.NODE_ALLOCATION, x).spec())
            .orElse(NodeAllocationSpec.EMPTY);
    var holdings = new ArrayList<Holding<DeviceHolder>>();
    record.devices().forEach((d, h) -> holdings.add(new Holding<>(d, h)));
    var clash = use.overConsumed(holdings);
    if (clash.isPresent()) {
      throw new ApiException(
          Reason.Conflict,
          slice.ref()
              + ": spec: its counters are over-consumed by what nodeallocation/"
              + node
              + " holds now: "
              + clash.get().describe()
              + ", and device "
              + clash.get().device()
              + " by "
              + clash.get().holder()
              + "; publish them once those claims are gone");
    }
    return List.of(new Compare.ModRevision(key, kv.map(x -> x.modRevision()).orElse(0L)));
  }

  @Override
  public List<Compare> beforeDelete(Reads reads, ApiObject current) {
    return switch (current) {
      case NodeAllocation a -> recordWrite(reads, a, NodeAllocationSpec.EMPTY);
      case Node n -> nodeDelete(reads, n);
      default -> List.of();
    };
  }

  private List<Compare> claimWrite(Reads reads, ResourceClaim claim) {
    if (claim.status().allocation().isEmpty()) {
      return List.of();
    }
    var allocation = claim.status().allocation().get();
    var node = allocation.node();
    var key = StoredObjects.key(Kinds.NODE_ALLOCATION, node);
    var kv = reads.get(key);
    var record =
        kv.map(x -> stored.decode(Kinds.NODE_ALLOCATION, x).spec())
            .orElse(NodeAllocationSpec.EMPTY);
    for (AllocatedDevice d : allocation.devices()) {
      var holder = record.holder(d.device());
      if (holder.isEmpty()) {
        throw new ApiException(
            Reason.Conflict,
            claim.ref()
                + ": status.allocation: device "
                + d.device()
                + " on node "
                + node
                + " is not recorded for this claim in nodeallocation/"
                + node
                + "; only the allocator binds claims, after recording their devices there");
      }
      if (!holder.get().uid().equals(claim.metadata().uid())) {
        throw new ApiException(
            Reason.Conflict,
            claim.ref()
                + ": status.allocation: device "
                + d.device()
                + " on node "
                + node
                + " is held by "
                + holder.get());
      }
    }
    return List.of(new Compare.ModRevision(key, kv.map(x -> x.modRevision()).orElse(0L)));
  }

  /**
   * {@code current} may become {@code next} only if no entry of a live allocated claim is dropped
   * or changed.
   */
  private List<Compare> recordWrite(Reads reads, NodeAllocation current, NodeAllocationSpec next) {
    var node = current.metadata().name();
    var compares = new ArrayList<Compare>();
    var claims = new HashMap<String, Optional<ResourceClaim>>();
    var kept = new ArrayList<String>();
    current.spec().devices().entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            e -> {
              var holder = e.getValue();
              if (next.holder(e.getKey()).filter(holder::equals).isEmpty()
                  && holds(
                      read(stored, reads, holder, claims, compares), holder, node, e.getKey())) {
                kept.add("device " + e.getKey() + " is held by " + holder);
              }
            });
    if (!kept.isEmpty()) {
      throw new ApiException(
          Reason.Conflict,
          current.ref()
              + ": spec.devices: "
              + first(kept)
              + "; a live claim allocated a device keeps its entry (it goes once the claim is gone or placed elsewhere)");
    }
    return compares;
  }

  private List<Compare> nodeDelete(Reads reads, Node node) {
    var name = node.metadata().name();
    var key = StoredObjects.key(Kinds.NODE_ALLOCATION, name);
    var kv = reads.get(key);
    var compares = new ArrayList<Compare>();
    compares.add(new Compare.ModRevision(key, kv.map(x -> x.modRevision()).orElse(0L)));
    if (kv.isEmpty()) {
      return compares;
    }
    var record = stored.decode(Kinds.NODE_ALLOCATION, kv.get()).spec();
    var claims = new HashMap<String, Optional<ResourceClaim>>();
    var held = new ArrayList<String>();
    record.devices().entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            e -> {
              if (holds(
                  read(stored, reads, e.getValue(), claims, compares),
                  e.getValue(),
                  name,
                  e.getKey())) {
                held.add(e.getKey() + " by " + e.getValue());
              }
            });
    if (!held.isEmpty()) {
      throw new ApiException(
          Reason.Conflict,
          node.ref()
              + " cannot be deleted while live claims hold its devices: "
              + first(held)
              + "; delete those claims (or fence the node, which releases them) first");
    }
    return compares;
  }

  /** The holder's claim as stored now (once per claim), its read added to {@code compares}. */
  static Optional<ResourceClaim> read(
      StoredObjects stored,
      Reads reads,
      DeviceHolder holder,
      Map<String, Optional<ResourceClaim>> claims,
      List<Compare> compares) {
    return claims.computeIfAbsent(
        holder.claim(),
        name -> {
          var key = StoredObjects.key(Kinds.RESOURCE_CLAIM, name);
          var kv = reads.get(key);
          compares.add(new Compare.ModRevision(key, kv.map(x -> x.modRevision()).orElse(0L)));
          return kv.map(x -> stored.decode(Kinds.RESOURCE_CLAIM, x));
        });
  }

  /**
   * Whether {@code claim} is the holder's live claim and its allocation names {@code device} on
   * {@code node}.
   */
  static boolean holds(
      Optional<ResourceClaim> claim, DeviceHolder holder, String node, String device) {
    return claim
        .filter(c -> c.metadata().uid().equals(holder.uid()))
        .flatMap(c -> c.status().allocation())
        .filter(a -> a.names(node, device))
        .isPresent();
  }

  static String first(List<String> items) {
    var shown = String.join("; ", items.subList(0, Math.min(NAMED, items.size())));
    return items.size() > NAMED ? shown + "; and " + (items.size() - NAMED) + " more" : shown;
  }
}
