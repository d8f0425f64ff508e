package dev.quartermaster.agent.ledger;

import dev.quartermaster.api.device.mps.MpsShares;
import java.util.Collections;
import java.util.Set;
import java.util.TreeSet;

/**
 * The node-level side effects the ledger calls for: the compute domains this node must be a member
 * of (published on the Node, each with its helper process running), and the GPUs whose MPS control
 * daemon must run (those with a share held: started with the first, stopped after the last).
 *
 * <p>Derived, never toggled: a domain is wanted exactly while some entry that holds devices
 * (started or completed) names it. NVIDIA's plugin added the domain label on prepare and removed it
 * on unprepare, so a late unprepare of an old claim removed the label under a new claim prepared in
 * between. Here a late unprepare only removes its own entry; the domain stays while any other claim
 * still names it. Started entries count too, so membership is in place before a prepare completes
 * and never drops while one is half done.
 */
public record NodeEffects(Set<String> computeDomains, Set<String> mpsGpus) {
  public static final NodeEffects NONE = new NodeEffects(Set.of(), Set.of());

  public NodeEffects {
    computeDomains = Collections.unmodifiableSet(new TreeSet<>(computeDomains));
    mpsGpus = Collections.unmodifiableSet(new TreeSet<>(mpsGpus));
  }

  /** Only compute domains. */
  public NodeEffects(Set<String> computeDomains) {
    this(computeDomains, Set.of());
  }

  /**
   * The effects {@code state} needs. A pure function: call it after every change and at start-up.
   */
  public static NodeEffects of(LedgerState state) {
    var domains = new TreeSet<String>();
    var mps = new TreeSet<String>();
    for (var entry : state.claims().values()) {
      if (entry.holdsDevices()) {
        entry.computeDomain().ifPresent(domains::add);
        entry.devices().forEach(d -> MpsShares.parse(d).ifPresent(s -> mps.add(s.gpu())));
      }
    }
    return new NodeEffects(domains, mps);
  }
}
