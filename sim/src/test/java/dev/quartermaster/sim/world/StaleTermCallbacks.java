package dev.quartermaster.sim.world;

import dev.quartermaster.control.leader.LeaderElector;
import dev.quartermaster.control.leader.Term;
import java.time.Duration;

/**
 * The naive leader of issue 43, item 1: when its process wins a new term while it still led the
 * last one (paused past the renew deadline, its lease still free), its controllers are not told.
 * They keep writing under the ended term's token, the store refuses every one of those writes for
 * ever, and the elector, renewing happily, keeps every other replica standing by.
 */
public final class StaleTermCallbacks implements LeaderElector.Callbacks {
  private final LeaderElector.Callbacks real;

  public StaleTermCallbacks(LeaderElector.Callbacks real) {
    this.real = real;
  }

  @Override
  public void startedLeading(Term term) {
    real.startedLeading(term);
  }

  @Override
  public void stoppedLeading() {
    real.stoppedLeading();
  }

  @Override
  public void termEnded(Term ended, Term next, Duration silent) {}
}
