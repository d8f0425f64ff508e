package dev.quartermaster.api.domain;

/**
 * @param numNodes how many nodes the domain spans: it is Ready when this many members have a ready
 *     daemon, and its workloads run only then
 */
public record ComputeDomainSpec(int numNodes) {
  public static final int MAX_NODES = 4_096;
  public static final ComputeDomainSpec EMPTY = new ComputeDomainSpec(0);
}
