package dev.quartermaster.cli.commands;

import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.GpuSharing;
import dev.quartermaster.api.node.MigMode;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.cli.CliEnvironment;
import dev.quartermaster.cli.CliException;
import dev.quartermaster.cli.VersionInfo;
import dev.quartermaster.cli.drain.Drainer;
import dev.quartermaster.cli.edit.ObjectEdit;
import dev.quartermaster.cli.nodes.FenceReport;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code qm node fence|unfence|cordon|uncordon|drain|mig NAME}: an operator's word about a node.
 * Fencing declares a silent node dead, so its claims may be given to others; until then they stay
 * where they are, because the node may still be using them.
 */
@Command(
    name = "node",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description = "Operate on a node: fence, unfence, cordon, uncordon, drain, mig.")
public final class NodeCommand {

  /** {@code qm node} with its subcommands, bound to {@code env}. */
  public static picocli.CommandLine command(CliEnvironment env) {
    return new picocli.CommandLine(new NodeCommand())
        .addSubcommand(new Fence(env))
        .addSubcommand(new Unfence(env))
        .addSubcommand(new Cordon(env))
        .addSubcommand(new Uncordon(env))
        .addSubcommand(new Drain(env))
        .addSubcommand(new Mig(env))
        .addSubcommand(new Share(env));
  }

  abstract static class Change implements Callable<Integer> {
    final CliEnvironment env;

    @Spec CommandSpec spec;

    @Mixin ClientOptions client = new ClientOptions();

    @Parameters(index = "0", paramLabel = "NAME")
    String name;

    Change(CliEnvironment env) {
      this.env = env;
    }

    abstract UnaryOperator<NodeSpec> change();

    abstract String done();

    /** What the change does to the node's labels: nothing, but for uncordon. */
    UnaryOperator<Map<String, String>> labels() {
      return l -> l;
    }

    /** A line after the change's, about the node as the change left it: none, but for unfence. */
    Optional<String> after(Node node) {
      return Optional.empty();
    }

    @Override
    public Integer call() {
      try (var connection = client.connect(env)) {
        boolean changed =
            ObjectEdit.apply(
                connection.api(),
                Kinds.NODE,
                name,
                node ->
                    new Node(
                        node.metadata().withLabels(labels().apply(node.metadata().labels())),
                        change().apply(node.spec()),
                        node.status()));
        var line = "node/" + name + (changed ? " " : " already ") + done();
        var next = connection.api().get(Kinds.NODE, name).flatMap(this::after);
        return report(next.map(n -> line + "\n" + n).orElse(line));
      }
    }

    private int report(String line) {
      spec.commandLine().getOut().println(line);
      spec.commandLine().getOut().flush();
      return 0;
    }
  }

  @Command(
      name = "fence",
      mixinStandardHelpOptions = true,
      description =
          "Declare the node down: its tasks are replaced elsewhere, its device and volume claims released "
              + "without it. Refused while its agent heartbeats, unless --force.")
  static final class Fence extends Change {
    @Option(
        names = "--force",
        description =
            "fence even though the node's agent still heartbeats (only if you know the node is down)")
    boolean force;

    Fence(CliEnvironment env) {
      super(env);
    }

    /** Refuses an alive node unless --force, fences, then says what was handed over. */
    @Override
    public Integer call() {
      try (var connection = client.connect(env)) {
        var api = connection.api();
        var node =
            api.get(Kinds.NODE, name)
                .orElseThrow(() -> new CliException("node/" + name + " not found"));
        var report = FenceReport.of(api, node);
        if (report.alive().isPresent() && !force && !node.spec().fenced()) {
          throw new CliException(report.refusal(name));
        }
        boolean changed =
            ObjectEdit.apply(
                api,
                Kinds.NODE,
                name,
                n -> new Node(n.metadata(), change().apply(n.spec()), n.status()));
        var out = spec.commandLine().getOut();
        out.println(
            "node/"
                + name
                + (changed ? " " : " already ")
                + done()
                + (report.alive().isPresent() && changed ? " (forced: its agent was alive)" : ""));
        if (changed) {
          report.handedOverLines().forEach(out::println);
        }
        out.flush();
        return 0;
      }
    }

    @Override
    UnaryOperator<NodeSpec> change() {
      return s -> s.withUnschedulable(true).withFenced(true);
    }

    @Override
    String done() {
      return "fenced";
    }
  }

  @Command(
      name = "unfence",
      mixinStandardHelpOptions = true,
      description =
          "Take back a fence: the node's agent is trusted again; it stays cordoned until uncordoned.")
  static final class Unfence extends Change {
    Unfence(CliEnvironment env) {
      super(env);
    }

    @Override
    UnaryOperator<NodeSpec> change() {
      return s -> s.withFenced(false);
    }

    /** A fence cordons; taking it back does not, and an operator who forgets waits for nothing. */
    @Override
    Optional<String> after(Node node) {
      return node.spec().unschedulable()
          ? Optional.of(
              "still cordoned, as a fence leaves it: `qm node uncordon "
                  + name
                  + "` gives it new work once you trust it")
          : Optional.empty();
    }

    @Override
    String done() {
      return "unfenced";
    }
  }

  @Command(
      name = "cordon",
      mixinStandardHelpOptions = true,
      description = "Give the node no new allocations.")
  static final class Cordon extends Change {
    Cordon(CliEnvironment env) {
      super(env);
    }

    @Override
    UnaryOperator<NodeSpec> change() {
      return s -> s.withUnschedulable(true);
    }

    @Override
    String done() {
      return "cordoned";
    }
  }

  @Command(
      name = "uncordon",
      mixinStandardHelpOptions = true,
      description = "Allow new allocations on the node again (a fenced node is unfenced too).")
  static final class Uncordon extends Change {
    Uncordon(CliEnvironment env) {
      super(env);
    }

    @Override
    UnaryOperator<NodeSpec> change() {
      return s -> s.withUnschedulable(false).withFenced(false);
    }

    /** An unfinished drain's mark goes too: the node takes work again. */
    @Override
    UnaryOperator<Map<String, String>> labels() {
      return l -> {
        var next = new HashMap<>(l);
        next.remove(Node.DRAINING_LABEL);
        return Map.copyOf(next);
      };
    }

    @Override
    String done() {
      return "uncordoned";
    }
  }

  /** How {@code qm node mig} names a mode: {@code off} is a GPU used whole. */
  enum MigWord {
    dynamic(Optional.of(MigMode.Dynamic)),
    static_(Optional.of(MigMode.Static)),
    off(Optional.empty());

    final Optional<MigMode> mode;

    MigWord(Optional<MigMode> mode) {
      this.mode = mode;
    }

    static MigWord parse(String word) {
      return switch (word) {
        case "dynamic" -> dynamic;
        case "static" -> static_;
        case "off" -> off;
        default ->
            throw new picocli.CommandLine.TypeConversionException(
                "'" + word + "' is not a MIG mode: dynamic, static or off");
      };
    }
  }

  @Command(
      name = "mig",
      mixinStandardHelpOptions = true,
      description =
          "Record how a GPU is sliced by MIG: dynamic (slices made as claims ask), static (the"
              + " instances that exist) or off (used whole). Refused while a claim holds the GPU or"
              + " a slice of it; the node's agent switches the GPU when it is idle.")
  static final class Mig extends Change {
    @Mixin GpuOption gpuOption = new GpuOption();

    @Parameters(
        index = "1",
        paramLabel = "MODE",
        converter = MigWordConverter.class,
        description = "dynamic, static or off")
    MigWord mode;

    Mig(CliEnvironment env) {
      super(env);
    }

    @Override
    UnaryOperator<NodeSpec> change() {
      return s -> s.withMig(gpuOption.gpu, mode.mode);
    }

    @Override
    String done() {
      return "MIG " + mode.mode.map(MigMode::name).orElse("off") + " for " + gpuOption.gpu;
    }
  }

  @Command(
      name = "share",
      mixinStandardHelpOptions = true,
      description =
          "Record how a GPU not in MIG mode is shared: time-sliced (REPLICAS claims take turns on the"
              + " whole GPU; nothing isolates their memory or faults), mps (up to CLIENTS claims"
              + " each get a compute share and a hard memory cap through one MPS daemon; one fault"
              + " domain) or off (used whole, by one claim). Refused while a claim holds the GPU or"
              + " a part of it.")
  static final class Share extends Change {
    @Mixin GpuOption gpuOption = new GpuOption();

    @Parameters(index = "1", paramLabel = "MODE", description = "time-sliced, mps or off")
    String mode;

    @Option(
        names = "--clients",
        paramLabel = "N",
        defaultValue = "48",
        description = "how many claims may share an MPS GPU at once (default: ${DEFAULT-VALUE})")
    int clients;

    @Option(
        names = "--replicas",
        paramLabel = "N",
        defaultValue = "4",
        description = "how many claims share a time-sliced GPU (default: ${DEFAULT-VALUE})")
    int replicas;

    Share(CliEnvironment env) {
      super(env);
    }

    private Optional<GpuSharing> how() {
      return switch (mode) {
        case "time-sliced" -> Optional.of(GpuSharing.timeSliced(replicas));
        case "mps" -> Optional.of(GpuSharing.mps(clients));
        case "off" -> Optional.empty();
        default ->
            throw new picocli.CommandLine.ParameterException(
                spec.commandLine(),
                "'" + mode + "' is not a sharing mode: time-sliced, mps or off");
      };
    }

    @Override
    UnaryOperator<NodeSpec> change() {
      var how = how();
      return s -> s.withSharing(gpuOption.gpu, how);
    }

    @Override
    String done() {
      var gpu = gpuOption.gpu;
      return how()
          .map(
              h ->
                  switch (h.mode()) {
                    case TimeSliced -> "time-sliced by " + h.replicas() + " for " + gpu;
                    case Mps -> "MPS for up to " + h.replicas() + " clients on " + gpu;
                  })
          .orElse("whole " + gpu);
    }
  }

  /** The GPU a mode command changes ({@code --gpu gpu-0}). */
  static final class GpuOption {
    @Option(
        names = "--gpu",
        required = true,
        paramLabel = "GPU",
        description = "the GPU's device name on the node, e.g. gpu-0 (qm describe node NAME)")
    String gpu;
  }

  static final class MigWordConverter implements picocli.CommandLine.ITypeConverter<MigWord> {
    @Override
    public MigWord convert(String value) {
      return MigWord.parse(value);
    }
  }

  @Command(
      name = "drain",
      mixinStandardHelpOptions = true,
      description =
          "Cordon the node, stop its tasks (their workloads start them elsewhere) and wait until its claims"
              + " and volumes are released.")
  static final class Drain implements Callable<Integer> {
    private final CliEnvironment env;

    @Spec CommandSpec spec;

    @Mixin ClientOptions client = new ClientOptions();

    @Parameters(index = "0", paramLabel = "NAME")
    String name;

    @Option(
        names = "--timeout",
        paramLabel = "DURATION",
        defaultValue = "5m",
        converter = DurationConverter.class,
        description =
            "give up after this long, leaving the node cordoned (default: ${DEFAULT-VALUE})")
    Duration timeout;

    @Option(
        names = "--force",
        description = "also delete tasks no workload owns (nobody starts them again)")
    boolean force;

    Drain(CliEnvironment env) {
      this.env = env;
    }

    @Override
    public Integer call() throws InterruptedException {
      try (var connection = client.connect(env)) {
        return new Drainer(connection.api(), env.clock(), spec.commandLine().getOut())
            .drain(name, timeout, force);
      }
    }
  }
}
