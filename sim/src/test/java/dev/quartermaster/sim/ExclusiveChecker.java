package dev.quartermaster.sim;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.sim.world.ExclusiveUse;
import dev.quartermaster.store.StoreEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * I1 on the true store state, at every commit, judged by the simulation's one judge ({@link
 * ExclusiveUse}): no counter of a node over-consumed by live claims' allocations (no device in
 * two). Thread-safe (the store calls it under its lock, but tests read it from others).
 */
final class ExclusiveChecker implements CommitListener {
  private final Map<String, ResourceClaim> claims = new HashMap<>();
  private final Map<String, DeviceSlice> slices = new HashMap<>();
  private final List<String> violations = new ArrayList<>();
  private int allocatedNow;

  @Override
  public synchronized void committed(long revision, List<StoreEvent> changes) {
    boolean touched = false;
    for (var e : changes) {
      var key = e.kv().key();
      if (key.startsWith("/registry/deviceslices/")) {
        var name = key.substring("/registry/deviceslices/".length());
        if (e.type() == StoreEvent.Type.DELETE) {
          slices.remove(name);
        } else {
          slices.put(name, ObjectCodec.fromJson(e.kv().value(), Kinds.DEVICE_SLICE));
        }
        continue;
      }
      if (!key.startsWith("/registry/resourceclaims/")) {
        continue;
      }
      touched = true;
      var name = key.substring("/registry/resourceclaims/".length());
      if (e.type() == StoreEvent.Type.DELETE) {
        claims.remove(name);
      } else {
        claims.put(name, ObjectCodec.fromJson(e.kv().value(), Kinds.RESOURCE_CLAIM));
      }
    }
    if (!touched) {
      return;
    }
    int allocated = 0;
    for (var c : claims.values()) {
      if (c.status().allocation().isPresent()) {
        allocated++;
      }
    }
    ExclusiveUse.violations(claims.values(), ExclusiveUse.bySlices(slices.values()))
        .forEach(v -> violations.add("revision " + revision + ": " + v));
    allocatedNow = allocated;
  }

  synchronized List<String> violations() {
    return List.copyOf(violations);
  }

  synchronized int allocated() {
    return allocatedNow;
  }
}
