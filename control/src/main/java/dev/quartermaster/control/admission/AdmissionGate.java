package dev.quartermaster.control.admission;

import dev.quartermaster.api.queue.Eviction;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.cluster.Informers;
import java.util.Optional;

/** How many workers of a group the workload controller may create. */
public sealed interface AdmissionGate {
  int admittedReplicas(Workload w, String group);

  /** Why {@code w} is being evicted: every task of it is then stopped. */
  Optional<Eviction> eviction(Workload w);

  /** Whether workloads pass through queues at all (and so carry an {@code Admitted} condition). */
  boolean queued();

  /** The product: what the workload's entry in its cohort's ledger admits; 0 before admission. */
  record Ledger(Informers informers) implements AdmissionGate {
    @Override
    public int admittedReplicas(Workload w, String group) {
      return Admissions.admittedReplicas(informers, w, group);
    }

    @Override
    public boolean queued() {
      return true;
    }

    @Override
    public Optional<Eviction> eviction(Workload w) {
      return Admissions.eviction(informers, w);
    }
  }

  /**
   * Every replica, at once: a workload controller run without an admission controller (tests of
   * that controller alone). The control plane never uses it.
   */
  record Open() implements AdmissionGate {
    @Override
    public int admittedReplicas(Workload w, String group) {
      return Integer.MAX_VALUE;
    }

    @Override
    public boolean queued() {
      return false;
    }

    @Override
    public Optional<Eviction> eviction(Workload w) {
      return Optional.empty();
    }
  }
}
