package dev.quartermaster.agent.tasks;

import java.util.List;

/** Whether a claim prepared on this node may be released ({@link ClaimRelease}). */
public sealed interface ClaimVerdict {

  /** Allocated here, not being deleted, its task not done with it: keep it prepared. */
  record Wanted() implements ClaimVerdict {}

  /**
   * Not wanted any more, but a task process here that was started with it may still run (I2): keep
   * it prepared and say for whom; the process's end looks at it again.
   */
  record InUse(List<ClaimUser> users) implements ClaimVerdict {
    public InUse {
      users = List.copyOf(users);
      if (users.isEmpty()) {
        throw new IllegalArgumentException("a claim in use has a user");
      }
    }
  }

  /** Nobody here needs it: unprepare it and let it go. */
  record Free() implements ClaimVerdict {}
}
