package dev.quartermaster.agent.host;

import dev.quartermaster.agent.cdi.ClaimSpecs;
import dev.quartermaster.agent.checkpoint.LedgerFile;
import dev.quartermaster.agent.effects.HelperProcesses;
import java.io.IOException;

/**
 * Everything of the node itself that a {@link dev.quartermaster.agent.NodeAgent} touches, as one
 * bundle: the state directory's lock, the ledger's durable file, the CDI specs, the per-domain
 * helper daemons, the device tree, the task processes with their records, the CSI plugins listening
 * on the node and the volume publications they made. {@link OsNodeHost} is the machine's; the
 * simulation passes one whose files lose unsynced writes on a crash and whose processes outlive
 * their agent as real ones do, so the whole agent runs in virtual time.
 *
 * <p>What lives on the node (ledger, specs, helpers, processes) outlives any one agent: a restarted
 * agent is given the same host and must find its predecessor's leftovers there.
 */
public interface NodeHost {

  /**
   * Takes the state directory's lock: a second agent on the same node is refused, naming the
   * holder.
   */
  StateLock lockState() throws IOException;

  LedgerFile ledgerFile();

  ClaimSpecs claimSpecs();

  HelperProcesses helpers();

  /** The MPS control daemons, one per GPU with a share held. */
  HelperProcesses mpsDaemons();

  DeviceTree devices();

  TaskHost tasks();

  /** Which live processes on the node hold a device open: a new prepare waits while any does. */
  DeviceHolders deviceHolders();

  /** The CSI plugin endpoints on this node. */
  CsiEndpoints csiPlugins();

  /** The volume publications on this node, whichever agent made them. */
  NodePublications publications();

  /**
   * A held state-directory lock; closing releases it (as the kernel does when the process dies).
   */
  @FunctionalInterface
  interface StateLock extends AutoCloseable {
    @Override
    void close() throws IOException;
  }
}
