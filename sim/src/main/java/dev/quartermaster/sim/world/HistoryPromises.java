package dev.quartermaster.sim.world;

import dev.quartermaster.api.queue.CohortQuota;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.store.StoreEvent;
import java.util.ArrayList;
import java.util.List;

/**
 * The store's promises judged at every revision of a real store's history, for the partitions
 * bench: each transaction's changes are given to {@link #committed} as the store's watch delivers
 * them, and {@link #check} judges the state they leave — I1 in the store, I5 in the store ({@link
 * VolumeClaimPromise}), G1 (a gang goes from holding nothing to whole in one transaction), G2 and
 * G3 ({@link GangPromises}, on {@code env}'s clock), OWNER ({@link OwnerPromise}), TERM ({@link
 * TermStamps}: no write of an ended term landed), and Q1 in its plain form (no cohort's admitted
 * workloads use more than its queues' quota and what it lends: the bench never lowers a quota).
 */
public final class HistoryPromises implements Observed {
  private final StoreView view = new StoreView();
  private final Env env;
  private final GangPromises gangs;
  private final SliceUses sliceUses = new SliceUses();

  public HistoryPromises(Env env) {
    this.env = env;
    this.gangs = new GangPromises(this);
  }

  /** One transaction's changes, at {@code revision}. */
  public void committed(long revision, List<StoreEvent> changes) {
    view.committed(revision, changes);
  }

  /** The promises the store's state now breaks, one line each. */
  public List<String> check() {
    var out = new ArrayList<String>();
    ExclusiveUse.violations(view.claims(), sliceUses.of(view.slices()))
        .forEach(v -> out.add("I1 store: " + v));
    gangs.check(out);
    OwnerPromise.check(view, out);
    VolumeClaimPromise.check(view, out);
    view.termStamps().check(out);
    for (var ledger : view.ledgers()) {
      CohortQuota.of(QueuePromises.specsIn(view, ledger), ledger.spec().admitted())
          .breach()
          .ifPresent(b -> out.add("Q1 cohort " + ledger.metadata().name() + ": " + b));
    }
    return out;
  }

  /** The revision of the last transaction given. */
  public long revision() {
    return view.revision();
  }

  @Override
  public StoreView view() {
    return view;
  }

  @Override
  public Env env() {
    return env;
  }
}
