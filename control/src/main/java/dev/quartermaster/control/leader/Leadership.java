package dev.quartermaster.control.leader;

/** Whether this process may write as the controllers right now. */
@FunctionalInterface
public interface Leadership {
  /** Always the leader: for a single controller instance, or tests. */
  Leadership ALWAYS = () -> true;

  /** True only while this process holds a lease it renewed within the renew deadline. */
  boolean isLeader();
}
