package dev.quartermaster.cli.metrics;

import dev.quartermaster.agent.NodeAgent;
import dev.quartermaster.agent.prepare.PrepareMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Locale;

/**
 * An in-process agent's metrics ({@code qm up}), on the server's registry and labelled by node:
 * {@code qm_agent_prepare_seconds{node,outcome}}, {@code qm_agent_unprepare_seconds{node,outcome}}
 * and {@code qm_agent_ledger_commits_total{node}}. A standalone {@code qm agent} serves no HTTP, so
 * its agent keeps {@link PrepareMetrics#NONE} and these are not exported for it.
 */
public final class AgentMeters implements PrepareMetrics {
  /**
   * A prepare is a ledger fsync or two and a CDI spec write: milliseconds, seconds on a slow disk.
   */
  static final Duration[] BUCKETS = {
    Duration.ofMillis(1),
    Duration.ofMillis(5),
    Duration.ofMillis(10),
    Duration.ofMillis(25),
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofSeconds(5)
  };

  private final MeterRegistry registry;
  private final String node;

  private AgentMeters(MeterRegistry registry, String node) {
    this.registry = registry;
    this.node = node;
  }

  /** Starts reporting {@code agent}'s prepares and ledger commits to {@code registry}. */
  public static void register(MeterRegistry registry, NodeAgent agent) {
    var node = agent.config().nodeName();
    var durable = agent.preparer().durable();
    FunctionCounter.builder("qm.agent.ledger.commits", durable, d -> d.writes())
        .description(
            "claim ledger commits made durable (each a fsynced journal append or snapshot; "
                + "group commit makes them fewer than the changes)")
        .tag("node", node)
        .register(registry);
    agent.preparer().observeWith(new AgentMeters(registry, node));
  }

  @Override
  public Span begin(Operation operation) {
    var sample = Timer.start(registry);
    var name = operation.name().toLowerCase(Locale.ROOT);
    return outcome ->
        sample.stop(
            Timer.builder("qm.agent." + name)
                .description("time an agent took to " + name + " a claim, by outcome")
                .serviceLevelObjectives(BUCKETS)
                .tags("node", node, "outcome", outcome)
                .register(registry));
  }
}
