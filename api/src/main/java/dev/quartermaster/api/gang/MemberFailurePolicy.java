package dev.quartermaster.api.gang;

/** What a gang does when one of its members fails or loses its node. */
public enum MemberFailurePolicy {
  /** Only that member is replaced; the others keep running (a job that tolerates it). */
  RestartMember,
  /**
   * Every member is stopped and the gang is placed again as a whole: what NCCL and MPI jobs need,
   * since their collective dies with any one rank.
   */
  RestartGang
}
