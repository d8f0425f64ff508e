package dev.quartermaster.api.gang;

/** Where a gang stands. */
public enum GangState {
  /** It holds nothing, and says why ({@code WaitingForGang}: does not fit; members missing). */
  Waiting,
  /** Its members got their devices together; members beyond {@code minMember} follow one by one. */
  Placed,
  /**
   * It was placed and lost a member it needs (a drain, a lost node, a crash): it holds devices for
   * fewer than {@code minMember} members, and is stopped and placed again as a whole unless the
   * missing members are placed beside the others within a bound.
   */
  Partial,
  /** Every slot's task has finished and none is to be restarted: the job is over. */
  Finished
}
