package dev.quartermaster.agent.tasks;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.workload.Task;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * What the task sync reads of this node's world, without a call: the informers' caches and the
 * ledger.
 */
public interface TaskViews {

  /** The informer's view of a task by name (empty until the informer has synced). */
  Optional<Task> task(String name);

  /** The informer's view of a claim by name. */
  Optional<ResourceClaim> claim(String name);

  /** By claim uid, the CDI devices this node's ledger holds it prepared with. */
  Optional<List<String>> preparedHere(String claimUid);

  /** The views that these lookups give, each read at every call. */
  static TaskViews of(
      Function<String, Optional<Task>> tasks,
      Function<String, Optional<ResourceClaim>> claims,
      Function<String, Optional<List<String>>> preparedHere) {
    return new TaskViews() {
      @Override
      public Optional<Task> task(String name) {
        return tasks.apply(name);
      }

      @Override
      public Optional<ResourceClaim> claim(String name) {
        return claims.apply(name);
      }

      @Override
      public Optional<List<String>> preparedHere(String claimUid) {
        return preparedHere.apply(claimUid);
      }
    };
  }
}
