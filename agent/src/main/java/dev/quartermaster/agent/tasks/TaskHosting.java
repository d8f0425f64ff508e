package dev.quartermaster.agent.tasks;

import dev.quartermaster.agent.host.TaskHost;
import dev.quartermaster.agent.volumes.VolumeMounts;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.Function;

/**
 * What this node gives a task besides its claims: where its process runs and is recorded ({@code
 * host}), where its output goes ({@code logOf}), its volumes published ({@code volumes}, told too
 * when a process ended) and what a task of a compute domain waits for ({@code domains}).
 */
public record TaskHosting(
    TaskHost host, Function<String, Path> logOf, VolumeMounts volumes, DomainGate domains) {
  public TaskHosting {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(logOf, "logOf");
    Objects.requireNonNull(volumes, "volumes");
    Objects.requireNonNull(domains, "domains");
  }
}
