package dev.quartermaster.agent.cdi;

import dev.quartermaster.agent.discovery.DiscoveredChannel;
import dev.quartermaster.agent.discovery.DiscoveredGpu;
import dev.quartermaster.agent.discovery.VerifiedNode;
import dev.quartermaster.agent.ledger.ClaimRef;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** CDI specs as a map in memory (same names as the real writer), for tests and the simulation. */
public final class InMemoryClaimSpecs implements ClaimSpecs {
  private final Map<String, List<String>> specs = new TreeMap<>();
  private final Map<String, List<VerifiedNode>> controlNodes = new TreeMap<>();

  private final Map<String, List<dev.quartermaster.agent.mig.PreparedSlice>> slices =
      new TreeMap<>();

  @Override
  public synchronized List<String> write(
      ClaimRef claim,
      List<DiscoveredGpu> gpus,
      List<DiscoveredChannel> channels,
      List<VerifiedNode> control) {
    return write(claim, gpus, channels, List.of(), control);
  }

  @Override
  public synchronized List<String> write(
      ClaimRef claim,
      List<DiscoveredGpu> gpus,
      List<DiscoveredChannel> channels,
      List<dev.quartermaster.agent.mig.PreparedSlice> migSlices,
      List<VerifiedNode> control) {
    var names = new java.util.ArrayList<String>();
    gpus.forEach(g -> names.add(CdiNames.qualified(DiscoveredGpu.CLASS, claim.uid(), g.name())));
    migSlices.forEach(
        s -> names.add(CdiNames.qualified(DiscoveredGpu.CLASS, claim.uid(), s.name())));
    slices.put(claim.uid(), List.copyOf(migSlices));
    channels.forEach(
        c -> names.add(CdiNames.qualified(DiscoveredChannel.CLASS, claim.uid(), c.name())));
    specs.put(claim.uid(), List.copyOf(names));
    controlNodes.put(claim.uid(), List.copyOf(control));
    return names;
  }

  @Override
  public synchronized void remove(String uid) {
    specs.remove(uid);
    controlNodes.remove(uid);
    slices.remove(uid);
  }

  @Override
  public synchronized Set<String> claimUids() {
    return Set.copyOf(specs.keySet());
  }

  /** The CDI names written for each claim uid. */
  public synchronized Map<String, List<String>> specs() {
    return Map.copyOf(specs);
  }

  /** The MIG slices the last write of each claim's spec listed. */
  public synchronized Map<String, List<dev.quartermaster.agent.mig.PreparedSlice>> slices() {
    return Map.copyOf(slices);
  }

  /** The control nodes the last write of each claim's spec listed. */
  public synchronized Map<String, List<VerifiedNode>> controlNodes() {
    return Map.copyOf(controlNodes);
  }
}
