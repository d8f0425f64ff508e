package dev.quartermaster.control.workload;

import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.api.workload.RestartBackoff;
import dev.quartermaster.control.admission.AdmissionGate;
import java.time.Duration;

/**
 * How a {@link WorkloadController} runs.
 *
 * @param expectationBound how long a group waits for the cache to show our writes before it reads
 *     live
 * @param backoff how fast a slot whose task keeps finishing is restarted
 * @param events where its events go
 * @param admission how many workers of a group it may create: {@link AdmissionGate.Ledger} in the
 *     control plane; {@link AdmissionGate.Open} (every replica at once) for tests of this
 *     controller alone
 * @param recovery what it does with a gang that lost part of its placement
 */
public record WorkloadOptions(
    Duration expectationBound,
    RestartBackoff backoff,
    EventRecorder events,
    AdmissionGate admission,
    GangRecovery recovery) {

  /** Without queues, events or a naive policy: what tests of this controller alone run. */
  public static WorkloadOptions of(Duration expectationBound) {
    return new WorkloadOptions(
        expectationBound,
        RestartBackoff.DEFAULT,
        EventRecorder.NONE,
        new AdmissionGate.Open(),
        GangRecovery.DEFAULT);
  }

  public WorkloadOptions withBackoff(RestartBackoff how) {
    return new WorkloadOptions(expectationBound, how, events, admission, recovery);
  }

  public WorkloadOptions withEvents(EventRecorder to) {
    return new WorkloadOptions(expectationBound, backoff, to, admission, recovery);
  }

  public WorkloadOptions withAdmission(AdmissionGate gate) {
    return new WorkloadOptions(expectationBound, backoff, events, gate, recovery);
  }

  public WorkloadOptions withRecovery(GangRecovery how) {
    return new WorkloadOptions(expectationBound, backoff, events, admission, how);
  }
}
