package dev.quartermaster.agent.mig;

import dev.quartermaster.agent.discovery.DiscoveredGpu;
import dev.quartermaster.api.device.mig.MigGeometry;
import dev.quartermaster.api.device.mig.MigModels;
import dev.quartermaster.api.node.MigMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * MIG on this node: the operator's wish ({@code NodeSpec.mig}), what each GPU offers ({@link
 * MigOffer}), its mode changed only while nothing holds it, and the Dynamic instances driven to
 * what the ledger holds.
 *
 * <p><b>Crash-safe by difference.</b> Instances are never created or destroyed for one prepare or
 * unprepare, only brought to the slices the ledger's holding entries name (as {@code
 * EffectsReconciler} does with helpers): an instance at a held slice's placement is that claim's
 * (adopted after a restart), any other on a Dynamic GPU is destroyed (a leak from a crash between
 * create and record, or an unprepare whose destroy was refused while a process still had it open).
 * A prepare persists its entry before the first reconcile, so an instance is never created for a
 * claim the ledger does not hold. Two holding claims never share a slice: the ledger judges them by
 * the GPU's counters. Calls are serialized.
 */
public final class NodeMig {
  private final MigControl control;
  private volatile Map<String, MigMode> wish = Map.of();

  public NodeMig(MigControl control) {
    this.control = Objects.requireNonNull(control, "control");
  }

  public MigControl control() {
    return control;
  }

  /** What the operator wants now ({@code NodeSpec.mig}). */
  public void wish(Map<String, MigMode> next) {
    wish = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(next));
  }

  public Map<String, MigMode> wish() {
    return wish;
  }

  /** What each GPU offers now, in the order given. */
  public synchronized List<MigOffer> offers(List<DiscoveredGpu> gpus) {
    var out = new ArrayList<MigOffer>();
    for (var gpu : gpus) {
      out.add(offer(gpu));
    }
    return out;
  }

  private MigOffer offer(DiscoveredGpu gpu) {
    var w = Optional.ofNullable(wish.get(gpu.name()));
    try {
      boolean on = control.enabled(gpu.index());
      var existing =
          on && MigModels.forProduct(gpu.model()).isPresent()
              ? control.instances(migGpu(gpu).orElseThrow())
              : List.<LiveInstance>of();
      return MigOffer.of(gpu, w, on, existing);
    } catch (MigRefusedException e) {
      return new MigOffer(
          Optional.empty(),
          Optional.empty(),
          List.of(),
          Optional.of(gpu.name() + ": cannot read its MIG state: " + e.getMessage()));
    }
  }

  private static Optional<MigGpu> migGpu(DiscoveredGpu gpu) {
    return MigModels.forProduct(gpu.model()).map(g -> new MigGpu(gpu.index(), gpu.name(), g));
  }

  /** The published slice called {@code device}, if any GPU offers it now. */
  public Optional<MigSlice> slice(String device, List<DiscoveredGpu> gpus) {
    for (var gpu : gpus) {
      if (device.startsWith(gpu.name() + "-mig-")) {
        return offer(gpu).slices().stream().filter(s -> s.name().equals(device)).findFirst();
      }
    }
    return Optional.empty();
  }

  /** The instance serving slice {@code slice} now, if it exists. */
  public Optional<LiveInstance> instance(MigSlice slice) throws MigRefusedException {
    return control.instances(slice.gpu()).stream()
        .filter(i -> i.placement().equals(slice.placement()))
        .findFirst();
  }

  /** What one reconcile did and could not do. */
  public record Outcome(
      List<LiveInstance> created, List<LiveInstance> destroyed, List<String> errors) {
    public Outcome {
      created = List.copyOf(created);
      destroyed = List.copyOf(destroyed);
      errors = List.copyOf(errors);
    }
  }

  /**
   * Brings the instances of every Dynamic GPU to the slices in {@code held} (the devices the
   * ledger's holding entries name): destroys the others first (freeing their positions), then
   * creates the missing ones.
   */
  public synchronized Outcome reconcile(Set<String> held, List<DiscoveredGpu> gpus) {
    var created = new ArrayList<LiveInstance>();
    var destroyed = new ArrayList<LiveInstance>();
    var errors = new ArrayList<String>();
    for (var gpu : gpus) {
      var mg = migGpu(gpu);
      if (mg.isEmpty() || wish.get(gpu.name()) != MigMode.Dynamic) {
        continue; // Static GPUs' instances are the operator's; whole GPUs have none
      }
      try {
        if (!control.enabled(gpu.index())) {
          continue;
        }
        var wanted = new TreeMap<String, dev.quartermaster.api.device.mig.MigPlacement>();
        for (var p : mg.get().geometry().placements()) {
          var name = MigGeometry.deviceName(gpu.name(), p);
          if (held.contains(name)) {
            wanted.put(name, p);
          }
        }
        var existing = control.instances(mg.get());
        for (var i : existing) {
          if (!wanted.containsValue(i.placement())) {
            try {
              control.destroy(i);
              destroyed.add(i);
            } catch (MigRefusedException e) {
              errors.add("destroying " + i.deviceName(gpu.name()) + ": " + e.getMessage());
            }
          }
        }
        var have = new TreeSet<String>();
        existing.forEach(i -> have.add(i.deviceName(gpu.name())));
        for (var w : wanted.entrySet()) {
          if (!have.contains(w.getKey())) {
            try {
              created.add(control.create(mg.get(), w.getValue()));
            } catch (MigRefusedException e) {
              errors.add("creating " + w.getKey() + ": " + e.getMessage());
            }
          }
        }
      } catch (MigRefusedException e) {
        errors.add(gpu.name() + ": " + e.getMessage());
      }
    }
    return new Outcome(created, destroyed, errors);
  }

  /**
   * Turns MIG mode on or off where the wish differs from the mode, on GPUs nothing holds; {@code
   * holders} maps each held device to its claim. Returns the GPUs switched, and per GPU that waits,
   * why (naming the claims it waits out) or what refused it.
   */
  public synchronized MigModeChanges applyModes(
      Map<String, String> holders, List<DiscoveredGpu> gpus) {
    var switched = new TreeMap<String, Boolean>();
    var waiting = new TreeMap<String, String>();
    for (var gpu : gpus) {
      boolean want = wish.containsKey(gpu.name());
      var change = gpu.name() + (want ? " switches to MIG" : " switches MIG off");
      try {
        if (control.enabled(gpu.index()) == want) {
          continue;
        }
        var claims = new TreeSet<String>();
        holders.forEach(
            (device, claim) -> {
              if (device.equals(gpu.name()) || device.startsWith(gpu.name() + "-mig-")) {
                claims.add(claim);
              }
            });
        if (!claims.isEmpty()) {
          waiting.put(gpu.name(), change + " once claims " + claims + " let go");
          continue;
        }
        if (!want) {
          var mg = migGpu(gpu);
          if (mg.isPresent()) {
            for (var i : control.instances(mg.get())) {
              control.destroy(i); // unheld: a Dynamic leftover, or a Static layout given up
            }
          }
        }
        control.setEnabled(gpu.index(), want);
        switched.put(gpu.name(), want);
      } catch (MigRefusedException e) {
        waiting.put(gpu.name(), change + " when the driver lets it: " + e.getMessage());
      }
    }
    return new MigModeChanges(switched, waiting);
  }
}
