package dev.quartermaster.agent.cdi;

import dev.quartermaster.agent.devices.Gpu;
import dev.quartermaster.agent.ledger.ClaimRef;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** CDI specs as a map in memory (same names as the real writer), for tests and the simulation. */
public final class InMemoryClaimSpecs implements ClaimSpecs {
  private final Map<String, List<String>> specs = new TreeMap<>();

  @Override
  public synchronized List<String> write(ClaimRef claim, List<Gpu> gpus) {
    var names = gpus.stream().map(g -> CdiNames.qualified(Gpu.CLASS, claim.uid(), g.name())).toList();
    specs.put(claim.uid(), names);
    return names;
  }

  @Override
  public synchronized void remove(String uid) {
    specs.remove(uid);
  }

  @Override
  public synchronized Set<String> claimUids() {
    return Set.copyOf(specs.keySet());
  }

  /** The CDI names written for each claim uid. */
  public synchronized Map<String, List<String>> specs() {
    return Map.copyOf(specs);
  }
}
