package dev.quartermaster.agent.tasks;

import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Task;
import java.util.Optional;
import java.util.function.Function;

/**
 * Answers to "may this claim be released?" that the agent must not give, kept so that the tests of
 * {@link ClaimUse} and of the claim sync show they catch them. Each ignores the processes that run.
 */
public final class NaiveClaimRelease implements ClaimRelease {
  private final String node;
  private final Function<String, Optional<Task>> tasks;

  private NaiveClaimRelease(String node, Function<String, Optional<Task>> tasks) {
    this.node = node;
    this.tasks = tasks;
  }

  /**
   * The claim object alone decides: released as soon as it is deleted, moved, deallocated or
   * replaced.
   */
  public static ClaimRelease claimObjectOnly(String node) {
    return new NaiveClaimRelease(node, name -> Optional.empty());
  }

  /**
   * The store's word decides (Nomad #26831): also released once its owner task is deleting, before
   * the task's process is gone.
   */
  public static ClaimRelease onTheStoresWord(String node, Function<String, Optional<Task>> tasks) {
    return new NaiveClaimRelease(node, tasks);
  }

  @Override
  public ClaimVerdict verdict(ResourceClaim claim) {
    boolean ownerDeleting =
        claim
            .metadata()
            .owner()
            .filter(o -> o.kind().equals(Kinds.TASK.name()))
            .flatMap(o -> tasks.apply(o.name()).filter(t -> t.metadata().uid().equals(o.uid())))
            .filter(t -> t.metadata().isDeleting())
            .isPresent();
    boolean wanted =
        claim.status().allocation().map(Allocation::node).filter(node::equals).isPresent()
            && !claim.metadata().isDeleting()
            && !ownerDeleting;
    return wanted ? new ClaimVerdict.Wanted() : new ClaimVerdict.Free();
  }

  @Override
  public ClaimVerdict verdict(ClaimRef held) {
    return new ClaimVerdict.Free();
  }
}
