package dev.quartermaster.sim.node;

import dev.quartermaster.agent.cdi.InMemoryClaimSpecs;
import dev.quartermaster.agent.checkpoint.SimulatedLedgerFile;
import dev.quartermaster.agent.effects.InMemoryHelperProcesses;
import dev.quartermaster.agent.host.DeviceHolders;
import dev.quartermaster.agent.host.MapCsiEndpoints;
import dev.quartermaster.agent.host.NodeHost;
import dev.quartermaster.agent.host.NodePublications;
import dev.quartermaster.core.env.Env;
import java.io.IOException;

/**
 * One simulated machine: what survives its agent (the ledger file with "unsynced writes are lost on
 * crash", CDI specs, helper daemons, task processes, devices, CSI plugins). A crash is {@link
 * #crash}: the ledger file loses what was not synced; everything else stays as it was, for the next
 * agent.
 */
public final class SimNodeHost implements NodeHost {
  private final String node;
  private final SimulatedLedgerFile ledger = new SimulatedLedgerFile();
  private final InMemoryClaimSpecs specs = new InMemoryClaimSpecs();
  private final InMemoryHelperProcesses helpers = new InMemoryHelperProcesses();
  private final InMemoryHelperProcesses mpsDaemons = new InMemoryHelperProcesses();
  private final SimDeviceTree devices;
  private final SimProcesses processes;

  /** The node's CSI plugins by endpoint; the simulation puts its simulated plugins here. */
  private final MapCsiEndpoints plugins = new MapCsiEndpoints();

  private volatile NodePublications publications = java.util.Set::of;
  private boolean locked;

  public SimNodeHost(Env env, String node, int gpus) {
    this(env, node, gpus, 0);
  }

  /**
   * @param channels how many IMEX channels the node offers
   */
  public SimNodeHost(Env env, String node, int gpus, int channels) {
    this(env, node, gpus, channels, false);
  }

  /**
   * @param mig whether the GPUs are MIG-capable, with a simulated driver ({@link
   *     SimDeviceTree#mig()}) whose "in use" is this node's process table
   */
  public SimNodeHost(Env env, String node, int gpus, int channels, boolean mig) {
    this.node = node;
    this.devices = new SimDeviceTree(node, gpus, channels, mig);
    this.processes = new SimProcesses(env, specs, devices);
    devices.heldBy(processes::opens);
  }

  public String node() {
    return node;
  }

  @Override
  public synchronized StateLock lockState() throws IOException {
    if (locked) {
      throw new IOException("simulated node " + node + ": another agent holds the state directory");
    }
    locked = true;
    return () -> {
      synchronized (this) {
        locked = false;
      }
    };
  }

  /** Power cut or {@code kill -9} of the agent: unsynced ledger writes are lost. */
  public void crash() {
    ledger.crash();
  }

  @Override
  public SimulatedLedgerFile ledgerFile() {
    return ledger;
  }

  @Override
  public InMemoryClaimSpecs claimSpecs() {
    return specs;
  }

  @Override
  public InMemoryHelperProcesses helpers() {
    return helpers;
  }

  /** The MPS daemons, one per GPU with a share held; the simulation kills them. */
  @Override
  public InMemoryHelperProcesses mpsDaemons() {
    return mpsDaemons;
  }

  @Override
  public SimDeviceTree devices() {
    return devices;
  }

  @Override
  public SimProcesses tasks() {
    return processes;
  }

  /** The node's processes that hold a device, from its process table (as {@code /proc} would). */
  @Override
  public DeviceHolders deviceHolders() {
    return processes::holders;
  }

  /**
   * Settable: {@code csiPlugins().put(endpoint, plugin)} starts a plugin on this node, {@code
   * remove} kills it.
   */
  @Override
  public MapCsiEndpoints csiPlugins() {
    return plugins;
  }

  /** What the node's simulated plugins published ({@link #publicationsFrom}); none until told. */
  @Override
  public NodePublications publications() {
    return () -> publications.targets();
  }

  /** The publications on this node are those {@code source} (the simulated storage) holds. */
  public void publicationsFrom(NodePublications source) {
    publications = source;
  }
}
