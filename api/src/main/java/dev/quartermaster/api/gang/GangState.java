package dev.quartermaster.api.gang;

/** Where a gang stands. */
public enum GangState {
  /** It holds nothing, and says why ({@code WaitingForGang}: does not fit; members missing). */
  Waiting,
  /** Its members got their devices together; members beyond {@code minMember} follow one by one. */
  Placed,
  /** Every slot's task has finished and none is to be restarted: the job is over. */
  Finished
}
