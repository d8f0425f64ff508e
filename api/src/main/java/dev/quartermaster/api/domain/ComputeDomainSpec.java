package dev.quartermaster.api.domain;

/** @param numNodes how many nodes the domain is expected to span (0 = as many as its claims need) */
public record ComputeDomainSpec(int numNodes) {
  public static final ComputeDomainSpec EMPTY = new ComputeDomainSpec(0);
}
