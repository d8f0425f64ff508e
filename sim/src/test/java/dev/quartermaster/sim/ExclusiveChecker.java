package dev.quartermaster.sim;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.store.StoreEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * I1 on the true store state, at every commit: no device of a node is in the allocation of two live
 * claims. Thread-safe (the store calls it under its lock, but tests read it from others).
 */
final class ExclusiveChecker implements CommitListener {
  private final Map<String, ResourceClaim> claims = new HashMap<>();
  private final List<String> violations = new ArrayList<>();
  private int allocatedNow;

  @Override
  public synchronized void committed(long revision, List<StoreEvent> changes) {
    boolean touched = false;
    for (var e : changes) {
      var key = e.kv().key();
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
    var holder = new HashMap<String, String>();
    int allocated = 0;
    for (var c : claims.values()) {
      if (c.status().allocation().isEmpty()) {
        continue;
      }
      allocated++;
      var a = c.status().allocation().get();
      for (var d : a.devices()) {
        var was = holder.put(a.node() + "/" + d.device(), c.metadata().name());
        if (was != null) {
          violations.add(
              "revision "
                  + revision
                  + ": device "
                  + a.node()
                  + "/"
                  + d.device()
                  + " allocated to both "
                  + was
                  + " and "
                  + c.metadata().name());
        }
      }
    }
    allocatedNow = allocated;
  }

  synchronized List<String> violations() {
    return List.copyOf(violations);
  }

  synchronized int allocated() {
    return allocatedNow;
  }
}
