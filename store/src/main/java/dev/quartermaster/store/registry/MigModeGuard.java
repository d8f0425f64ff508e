package dev.quartermaster.store.registry;

import dev.quartermaster.api.allocation.NodeAllocationSpec;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.mig.NodeMigGpus;
import dev.quartermaster.api.device.use.Parts;
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
import java.util.TreeSet;

/**
 * A GPU's mode — MIG ({@code spec.mig}, {@code qm node mig}) or shared ({@code spec.sharing},
 * {@code qm node share}) — changes only while nothing holds it: switching MIG mode may reset the
 * GPU, and its slices or replicas are other devices than the whole GPU, so a claim holding either
 * would lose what it runs on. A write of a node's spec that changes the mode of a GPU is refused
 * (409, naming the claims) while a live claim is allocated that GPU or one of its slices in {@code
 * nodeallocation/N}; and refused (422) when it names a GPU the node's slice does not show (a node
 * that has published no slice yet is taken at its word). The slice, the record and each claim read
 * join the write's transaction, so an allocation landing meanwhile makes it be judged again.
 * Creating a node is not judged: nothing holds a device of a new node.
 */
final class MigModeGuard implements WriteRules {
  private final StoredObjects stored;

  MigModeGuard(StoredObjects stored) {
    this.stored = stored;
  }

  @Override
  public List<Compare> beforeWrite(Reads reads, ApiObject current, ApiObject next) {
    if (!(current instanceof Node c) || !(next instanceof Node n)) {
      return List.of();
    }
    var changed = new TreeSet<String>();
    var all = new TreeSet<String>(c.spec().mig().keySet());
    all.addAll(n.spec().mig().keySet());
    all.addAll(c.spec().sharing().keySet());
    all.addAll(n.spec().sharing().keySet());
    boolean sharing = false;
    for (var gpu : all) {
      if (!java.util.Objects.equals(c.spec().mig().get(gpu), n.spec().mig().get(gpu))) {
        changed.add(gpu);
      }
      if (!java.util.Objects.equals(c.spec().sharing().get(gpu), n.spec().sharing().get(gpu))) {
        changed.add(gpu);
        sharing = true;
      }
    }
    if (changed.isEmpty()) {
      return List.of();
    }
    var field = sharing ? "spec.sharing" : "spec.mig";
    var name = n.metadata().name();
    var compares = new ArrayList<Compare>();
    var sliceKey = StoredObjects.key(Kinds.DEVICE_SLICE, name);
    var sliceKv = reads.get(sliceKey);
    compares.add(new Compare.ModRevision(sliceKey, sliceKv.map(x -> x.modRevision()).orElse(0L)));
    var slice = sliceKv.map(x -> stored.decode(Kinds.DEVICE_SLICE, x).spec());
    slice.ifPresent(s -> unknownGpus(n, changed, s, field));

    var recordKey = StoredObjects.key(Kinds.NODE_ALLOCATION, name);
    var recordKv = reads.get(recordKey);
    compares.add(new Compare.ModRevision(recordKey, recordKv.map(x -> x.modRevision()).orElse(0L)));
    var record =
        recordKv
            .map(x -> stored.decode(Kinds.NODE_ALLOCATION, x).spec())
            .orElse(NodeAllocationSpec.EMPTY);
    var parents = new HashMap<String, String>();
    slice.ifPresent(
        s ->
            s.devices()
                .forEach(
                    d ->
                        NodeMigGpus.gpuOf(d)
                            .or(() -> Parts.parentByName(d.name()))
                            .ifPresent(g -> parents.put(d.name(), g))));
    var claims = new HashMap<String, Optional<ResourceClaim>>();
    var held = new ArrayList<String>();
    new java.util.TreeMap<>(record.devices())
        .forEach(
            (device, holder) -> {
              var gpu = gpuOf(device, parents, changed);
              if (gpu.isPresent()
                  && AllocationGuard.holds(
                      AllocationGuard.read(stored, reads, holder, claims, compares),
                      holder,
                      name,
                      device)) {
                held.add("claim/" + holder.claim() + " (" + device + ")");
              }
            });
    if (!held.isEmpty()) {
      throw new ApiException(
          Reason.Conflict,
          n.ref()
              + ": "
              + field
              + ": the mode of "
              + String.join(", ", changed)
              + " may change only while nothing holds the GPU or a part of it (a slice, replica or share); held"
              + " by "
              + AllocationGuard.first(held)
              + " (delete those claims, or `qm node drain "
              + name
              + "`, and try again)");
    }
    return compares;
  }

  /** 422 for a changed GPU the node's slice does not show. */
  private static void unknownGpus(
      Node n, TreeSet<String> changed, DeviceSliceSpec slice, String field) {
    var gpus = NodeMigGpus.gpus(slice);
    var violations = new ArrayList<Violation>();
    for (var gpu : changed) {
      if (!gpus.contains(gpu)) {
        violations.add(
            new Violation(
                field + "." + gpu,
                "node "
                    + n.metadata().name()
                    + " has no GPU "
                    + gpu
                    + " (its GPUs: "
                    + (gpus.isEmpty() ? "none" : String.join(", ", gpus))
                    + ")"));
      }
    }
    if (!violations.isEmpty()) {
      throw ApiException.invalid(n.ref(), violations);
    }
  }

  /**
   * The changed GPU {@code device} is or is part of. A device the slice no longer shows is matched
   * by name ({@code gpu-0}, {@code gpu-0-mig-…} or {@code gpu-0-ts-…}), so a republished slice
   * cannot hide a holding.
   */
  private static Optional<String> gpuOf(
      String device, Map<String, String> parents, TreeSet<String> changed) {
    var parent = parents.get(device);
    if (parent != null) {
      return changed.contains(parent) ? Optional.of(parent) : Optional.empty();
    }
    var byName = Parts.parentByName(device);
    return changed.stream()
        .filter(g -> device.equals(g) || byName.filter(g::equals).isPresent())
        .findFirst();
  }
}
