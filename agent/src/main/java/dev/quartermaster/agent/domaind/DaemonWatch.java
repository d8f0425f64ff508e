package dev.quartermaster.agent.domaind;

import dev.quartermaster.agent.effects.HelperProcesses;
import dev.quartermaster.agent.prepare.ClaimPreparer;
import dev.quartermaster.api.node.DomainDaemon;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.env.Env.Cancellable;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every {@link #PERIOD} while the ledger wants a compute domain or an MPS daemon here: starts a
 * daemon that died again (the effects reconcile does, since the ledger still wants it) and, when a
 * wanted daemon's state changed, reports them all on the Node ({@code report}) and tells whoever
 * waits on them ({@code changed}: running tasks of a domain, prepares waiting for a ready daemon).
 * Nothing is written while the node is in no domain.
 */
public final class DaemonWatch implements AutoCloseable {
  public static final Duration PERIOD = Duration.ofSeconds(1);
  private static final Logger LOG = LoggerFactory.getLogger(DaemonWatch.class);

  private final Env env;
  private final String node;
  private final ClaimPreparer preparer;
  private final HelperProcesses helpers;
  private final Consumer<List<DomainDaemon>> report;
  private final Runnable changed;
  private volatile List<DomainDaemon> reported = List.of();
  private volatile Cancellable next = () -> false;
  private volatile boolean closed;

  public DaemonWatch(
      Env env,
      String node,
      ClaimPreparer preparer,
      HelperProcesses helpers,
      Consumer<List<DomainDaemon>> report,
      Runnable changed) {
    this.env = env;
    this.node = node;
    this.preparer = preparer;
    this.helpers = helpers;
    this.report = report;
    this.changed = changed;
  }

  /** The wanted daemons as last reported (none until the first check). */
  public List<DomainDaemon> reported() {
    return reported;
  }

  /** Checks every {@link #PERIOD} from now on, until closed. */
  public void start() {
    next = env.schedule(PERIOD, this::tick);
  }

  private void tick() {
    if (closed) {
      return;
    }
    try {
      var wanted = preparer.wantedDomains();
      if (wanted.isEmpty() && preparer.wantsMpsDaemons()) {
        preparer.syncEffects(); // starts an MPS daemon that died again
      }
      if (!wanted.isEmpty() || !reported.isEmpty()) {
        if (!wanted.isEmpty()) {
          preparer.syncEffects();
        }
        var daemons = helpers.daemons(wanted, env.now());
        if (!daemons.equals(reported)) {
          report.accept(daemons);
          reported = daemons;
          changed.run();
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("watching the compute domain daemons of node {} failed; trying again", node, e);
    }
    if (!closed) {
      next = env.schedule(PERIOD, this::tick);
    }
  }

  @Override
  public void close() {
    closed = true;
    next.cancel();
  }
}
