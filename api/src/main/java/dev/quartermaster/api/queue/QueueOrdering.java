package dev.quartermaster.api.queue;

/** How a queue's pending workloads are taken. */
public enum QueueOrdering {
  /** In order: a head that does not fit blocks every workload behind it. */
  StrictFIFO,
  /** In order, but a workload that does not fit does not block smaller ones behind it. */
  BestEffortFIFO
}
