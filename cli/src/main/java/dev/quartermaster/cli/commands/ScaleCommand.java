package dev.quartermaster.cli.commands;

import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.cli.CliEnvironment;
import dev.quartermaster.cli.CliException;
import dev.quartermaster.cli.VersionInfo;
import dev.quartermaster.cli.edit.ObjectEdit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code qm scale workload NAME [--group G] --replicas N}: sets one group's replicas, as {@code
 * kubectl scale} does, by a compare-and-set of the workload (what others changed meanwhile is
 * kept).
 */
@Command(
    name = "scale",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description = "Set the replicas of a workload's group.")
public final class ScaleCommand implements Callable<Integer> {
  private final CliEnvironment env;

  @Spec private CommandSpec spec;

  @Mixin private ClientOptions client = new ClientOptions();

  @Parameters(
      index = "0",
      paramLabel = "KIND",
      description = "workload (the only kind with replicas)")
  private String kindName;

  @Parameters(index = "1", paramLabel = "NAME")
  private String name;

  @Option(
      names = "--group",
      paramLabel = "GROUP",
      description = "the group to scale; may be left out when there is one")
  private String group;

  @Option(
      names = "--replicas",
      required = true,
      paramLabel = "N",
      description = "the number of tasks the group runs")
  private int replicas;

  public ScaleCommand(CliEnvironment env) {
    this.env = env;
  }

  @Override
  public Integer call() {
    if (!KindNames.resolve(kindName).equals(Kinds.WORKLOAD)) {
      throw new ParameterException(
          spec.commandLine(), "only a workload scales: qm scale workload NAME --replicas N");
    }
    if (replicas < 0) {
      throw new ParameterException(spec.commandLine(), "--replicas must be >= 0, got " + replicas);
    }
    var before = new AtomicReference<WorkerGroup>();
    try (var connection = client.connect(env)) {
      ObjectEdit.apply(
          connection.api(),
          Kinds.WORKLOAD,
          name,
          w -> {
            var groups = w.spec().groups();
            var chosen = chosen(groups.stream().map(WorkerGroup::name).toList());
            var next = new ArrayList<WorkerGroup>(groups.size());
            for (var g : groups) {
              if (g.name().equals(chosen)) {
                before.set(g);
                next.add(g.withReplicas(replicas));
              } else {
                next.add(g);
              }
            }
            return w.withSpec(w.spec().withGroups(next));
          });
    }
    var out = spec.commandLine().getOut();
    out.println(
        "workload/"
            + name
            + " scaled (group "
            + before.get().name()
            + ": "
            + before.get().replicas()
            + " -> "
            + replicas
            + ")");
    out.flush();
    return 0;
  }

  /** The group named by --group, or the only one; an unknown or missing name lists the groups. */
  private String chosen(List<String> groups) {
    if (group != null) {
      if (!groups.contains(group)) {
        throw new CliException(
            "workload/"
                + name
                + " has no group "
                + group
                + "; its groups: "
                + String.join(", ", groups));
      }
      return group;
    }
    if (groups.size() != 1) {
      throw new CliException(
          "workload/"
              + name
              + " has "
              + groups.size()
              + " groups ("
              + String.join(", ", groups)
              + "): say which with --group");
    }
    return groups.getFirst();
  }
}
