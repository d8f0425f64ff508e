package dev.quartermaster.agent.tasks;

import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.api.claim.ResourceClaim;

/**
 * The claim sync's one question to the task side: may a claim prepared here be released? Answered
 * by {@link ClaimUse} from this node's live task runs; tests keep naive answers beside it to show
 * that what they check can fail.
 */
public interface ClaimRelease {

  /** For the claim object as the claim sync sees it. */
  ClaimVerdict verdict(ResourceClaim claim);

  /**
   * For a claim the ledger holds whose object is gone or is another incarnation (a new uid): never
   * {@link ClaimVerdict.Wanted}, only in use or free.
   */
  ClaimVerdict verdict(ClaimRef held);
}
