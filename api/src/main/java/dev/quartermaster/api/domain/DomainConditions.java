package dev.quartermaster.api.domain;

/**
 * The condition types of a ComputeDomain's status: one home for the words its controller writes and
 * the rest read.
 */
public final class DomainConditions {
  /** Whether every member node's daemon answers ready; the reason says what it waits for. */
  public static final String READY = "Ready";

  private DomainConditions() {}
}
