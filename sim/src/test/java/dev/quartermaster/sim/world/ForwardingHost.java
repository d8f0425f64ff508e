package dev.quartermaster.sim.world;

import dev.quartermaster.agent.cdi.ClaimSpecs;
import dev.quartermaster.agent.checkpoint.LedgerFile;
import dev.quartermaster.agent.effects.HelperProcesses;
import dev.quartermaster.agent.host.CsiEndpoints;
import dev.quartermaster.agent.host.DeviceTree;
import dev.quartermaster.agent.host.NodeHost;
import dev.quartermaster.agent.host.NodePublications;
import dev.quartermaster.agent.host.TaskHost;
import java.io.IOException;

/**
 * Every part of the machine is {@code host}'s; a naive agent's view overrides the one part it
 * changes.
 */
abstract class ForwardingHost implements NodeHost {
  protected final NodeHost host;

  ForwardingHost(NodeHost host) {
    this.host = host;
  }

  @Override
  public StateLock lockState() throws IOException {
    return host.lockState();
  }

  @Override
  public LedgerFile ledgerFile() {
    return host.ledgerFile();
  }

  @Override
  public ClaimSpecs claimSpecs() {
    return host.claimSpecs();
  }

  @Override
  public HelperProcesses helpers() {
    return host.helpers();
  }

  @Override
  public HelperProcesses mpsDaemons() {
    return host.mpsDaemons();
  }

  @Override
  public DeviceTree devices() {
    return host.devices();
  }

  @Override
  public CsiEndpoints csiPlugins() {
    return host.csiPlugins();
  }

  @Override
  public NodePublications publications() {
    return host.publications();
  }

  @Override
  public TaskHost tasks() {
    return host.tasks();
  }

  @Override
  public dev.quartermaster.agent.host.DeviceHolders deviceHolders() {
    return host.deviceHolders();
  }
}
