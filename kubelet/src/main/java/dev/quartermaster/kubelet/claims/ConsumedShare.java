package dev.quartermaster.kubelet.claims;

import java.util.Objects;

/**
 * What one allocation of a shared device consumes of its capacity, as the scheduler recorded it
 * ({@code consumedCapacity}, after its request policy rounded the request), with the allocation's
 * {@code shareID}.
 *
 * @param compute percent of the GPU's SMs; -1 if the allocation does not say
 * @param memoryBytes bytes of the GPU's memory; -1 if the allocation does not say
 */
public record ConsumedShare(long compute, long memoryBytes, String shareId) {
  public ConsumedShare {
    Objects.requireNonNull(shareId, "shareId");
  }
}
