package dev.quartermaster.control.lifecycle;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.Write;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.cluster.Scheduling;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code ResourceClaim.status.reservedFor}: the live tasks using a claim. A task is added to each
 * claim it names in the same transaction that makes it {@code Scheduled} (so an agent never runs a
 * task on a claim that does not name it), and removed once it is finished or gone. Each write is a
 * compare-and-set on the claim as cached; a conflict comes back to the caller, which retries on a
 * fresher view.
 */
final class ClaimReservations {
  private final ApiClient api;
  private final Informers informers;

  ClaimReservations(ApiClient api, Informers informers) {
    this.api = api;
    this.informers = informers;
  }

  /**
   * The write that adds {@code task} to {@code claim}'s reservedFor, unless it is there already:
   * the scheduler commits it in one transaction with the task's Scheduled status.
   */
  Optional<Write> reserve(ResourceClaim claim, Task task) {
    return Scheduling.reserved(claim, task.metadata().name()).map(Write.UpdateStatus::new);
  }

  /** Removes {@code task} from every claim reserved for it; returns how many it changed. */
  int release(String task) {
    List<ResourceClaim> claims = informers.claims().cache().byIndex(Informers.BY_RESERVED, task);
    for (var c : claims) {
      var s = c.status();
      var reserved = new ArrayList<>(s.reservedFor());
      reserved.remove(task);
      api.updateStatus(
          c.withStatus(
              new ResourceClaimStatus(s.allocation(), reserved, s.prepare(), s.conditions())));
    }
    return claims.size();
  }
}
