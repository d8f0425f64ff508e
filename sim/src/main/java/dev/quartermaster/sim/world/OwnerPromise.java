package dev.quartermaster.sim.world;

import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kinds;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * OWNER: no task, claim or volume that is not being deleted names an owner the store does not have
 * (gone, or re-created under another uid). An owner's deletion waits for what it owns, and nothing
 * else deletes an object made for it after that (a create that landed late, issue 49).
 */
final class OwnerPromise {
  private OwnerPromise() {}

  static void check(StoreView view, List<String> out) {
    Map<String, Map<String, String>> uids = new HashMap<>();
    var workloads = new HashMap<String, String>();
    view.workloads().forEach(w -> workloads.put(w.metadata().name(), w.metadata().uid()));
    var tasks = new HashMap<String, String>();
    view.tasks().forEach(t -> tasks.put(t.metadata().name(), t.metadata().uid()));
    uids.put(Kinds.WORKLOAD.name(), workloads);
    uids.put(Kinds.TASK.name(), tasks);
    var owned = new ArrayList<ApiObject>();
    owned.addAll(view.tasks());
    owned.addAll(view.claims());
    owned.addAll(view.volumes());
    for (var o : owned) {
      if (o.metadata().isDeleting()) {
        continue;
      }
      o.metadata()
          .owner()
          .filter(ref -> uids.containsKey(ref.kind()))
          .filter(ref -> !ref.uid().equals(uids.get(ref.kind()).get(ref.name())))
          .ifPresent(
              ref ->
                  out.add(
                      "OWNER "
                          + o.ref()
                          + ": its owner "
                          + ref.kind()
                          + " "
                          + ref.name()
                          + " (uid "
                          + ref.uid()
                          + ") is not in the store, and nothing deletes it"));
    }
  }
}
