package dev.quartermaster.agent.cdi;

import dev.quartermaster.agent.discovery.DiscoveredChannel;
import dev.quartermaster.agent.discovery.DiscoveredGpu;
import dev.quartermaster.agent.discovery.VerifiedNode;
import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.mig.PreparedSlice;
import java.io.IOException;
import java.util.List;
import java.util.Set;

/**
 * The per-claim CDI specs on this node. Real: {@link CdiSpecWriter}; for tests: {@link
 * InMemoryClaimSpecs}. Every method is idempotent.
 */
public interface ClaimSpecs {

  /**
   * Writes (or rewrites) the spec for {@code claim}'s {@code gpus}, each with its own node, and
   * {@code controlNodes} (the nodes every GPU container needs besides its GPU's); returns the
   * qualified CDI names.
   */
  default List<String> write(
      ClaimRef claim, List<DiscoveredGpu> gpus, List<VerifiedNode> controlNodes)
      throws IOException {
    return write(claim, gpus, List.of(), controlNodes);
  }

  /**
   * Writes (or rewrites) the specs for {@code claim}'s {@code gpus} (as above) and IMEX {@code
   * channels}, each with its own {@code /dev/nvidia-caps-imex-channels/channel<N>} node; returns
   * the qualified CDI names, GPUs first. At least one device.
   */
  List<String> write(
      ClaimRef claim,
      List<DiscoveredGpu> gpus,
      List<DiscoveredChannel> channels,
      List<VerifiedNode> controlNodes)
      throws IOException;

  /**
   * As above, with MIG {@code slices}: each a device of the GPU spec with its parent's node and its
   * capability nodes, its environment carrying the MIG device's UUID.
   */
  default List<String> write(
      ClaimRef claim,
      List<DiscoveredGpu> gpus,
      List<DiscoveredChannel> channels,
      List<PreparedSlice> slices,
      List<VerifiedNode> controlNodes)
      throws IOException {
    if (!slices.isEmpty()) {
      throw new UnsupportedOperationException("these specs cannot hold MIG slices");
    }
    return write(claim, gpus, channels, controlNodes);
  }

  /** Removes every spec of the claim with {@code uid}; nothing if there is none. */
  void remove(String uid) throws IOException;

  /** The uids of the claims that have a spec now (to clean up after a crash). */
  Set<String> claimUids() throws IOException;
}
