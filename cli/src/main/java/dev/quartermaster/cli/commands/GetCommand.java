package dev.quartermaster.cli.commands;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.event.InvolvedObject;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.table.KindTables;
import dev.quartermaster.cli.CliEnvironment;
import dev.quartermaster.cli.VersionInfo;
import dev.quartermaster.cli.events.EventQuery;
import dev.quartermaster.cli.output.ObjectPrinter;
import dev.quartermaster.cli.output.Output;
import dev.quartermaster.cli.output.OutputFormat;
import dev.quartermaster.cli.output.TableListing;
import dev.quartermaster.cli.table.PluginTable;
import dev.quartermaster.cli.watch.ListWatch;
import dev.quartermaster.cli.watch.WatchSink;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Predicate;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code qm get KIND [NAME]}: shows objects as a table or as documents, and with {@code -w} follows
 * their changes.
 */
@Command(
    name = "get",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description = "Show objects of one kind.")
public final class GetCommand implements Callable<Integer> {
  /**
   * What {@code qm get plugins} answers to: plugins are no kind, they are read from each node's
   * status.
   */
  private static final Set<String> PLUGINS = Set.of("plugin", "plugins");

  private final CliEnvironment env;

  @Spec private CommandSpec spec;

  @Mixin private ClientOptions client = new ClientOptions();

  @Parameters(
      index = "0",
      paramLabel = "KIND",
      completionCandidates = KindCandidates.class,
      description =
          "${COMPLETION-CANDIDATES} (or singular or short name); "
              + "or plugins: the CSI plugin instances the nodes' agents found")
  private String kindName;

  @Parameters(
      index = "1..*",
      arity = "0..*",
      paramLabel = "NAME",
      description = "the objects' names (or KIND/NAME as the first argument, as kubectl takes it)")
  private List<String> names = new ArrayList<>();

  @Option(
      names = "--ignore-not-found",
      description = "a named object that does not exist is no error: nothing is printed for it")
  private boolean ignoreNotFound;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FORMAT",
      converter = Output.Converter.class,
      description =
          "table (default), wide, yaml, json, name (kind/name, a line each) or"
              + " jsonpath=TEMPLATE (as jsonpath='{.items[*].metadata.name}')")
  private Output output = Output.TABLE;

  @Option(
      names = {"-l", "--selector"},
      paramLabel = "SELECTOR",
      description = "label selector, e.g. gpu=a100,zone!=b")
  private String selector;

  @Option(
      names = "--for",
      paramLabel = "KIND/NAME",
      description = "with events: only those about this object, e.g. --for task/training-workers-0")
  private String forObject;

  @Option(
      names = "--chunk-size",
      paramLabel = "N",
      defaultValue = "500",
      description =
          "a table of a list is read and printed N objects at a time, all at one revision (0: in"
              + " one request; default: ${DEFAULT-VALUE})")
  private int chunkSize;

  @Option(
      names = {"-w", "--watch"},
      description = "after listing, print changes as they happen (until Ctrl-C)")
  private boolean watch;

  public GetCommand(CliEnvironment env) {
    this.env = env;
  }

  @Override
  public Integer call() throws InterruptedException {
    if (PLUGINS.contains(kindName.toLowerCase(Locale.ROOT))) {
      return plugins();
    }
    if (chunkSize < 0) {
      throw new ParameterException(spec.commandLine(), "--chunk-size must be 0 or more");
    }
    var named = KindSlashName.split(kindName, names, spec.commandLine());
    var kind = KindNames.resolve(named.kind());
    var labels = Optional.ofNullable(selector);
    if (named.names().size() > 1 || (ignoreNotFound && !named.names().isEmpty())) {
      if (labels.isPresent() || watch || forObject != null) {
        throw new ParameterException(
            spec.commandLine(),
            "several NAMEs or --ignore-not-found cannot be used with --selector, --watch or --for");
      }
      try (var connection = client.connect(env)) {
        return several(connection.api(), kind, named.names());
      }
    }
    var target = named.names().stream().findFirst();
    if (target.isPresent() && labels.isPresent()) {
      throw new ParameterException(
          spec.commandLine(), "a NAME and --selector cannot be used together");
    }
    var parsed = LabelSelector.parse(labels.orElse(""));
    if (forObject != null) {
      if (!kind.equals(Kinds.EVENT)) {
        throw new ParameterException(
            spec.commandLine(), "--for is for events: qm get events --for " + forObject);
      }
      if (labels.isPresent()) {
        throw new ParameterException(
            spec.commandLine(), "--for and --selector cannot be used together");
      }
      parsed = EventQuery.about(involved(forObject));
    }
    try (var connection = client.connect(env)) {
      run(connection.api(), kind, target, parsed);
    }
    return 0;
  }

  private <T extends ApiObject> void run(
      ApiClient api, Kind<T> kind, Optional<String> target, LabelSelector labels)
      throws InterruptedException {
    if (!watch && output.isTable()) {
      TableListing.print(
          api,
          kind,
          target,
          labels,
          output.format() == OutputFormat.WIDE,
          env.clock().instant(),
          chunkSize,
          spec.commandLine().getOut(),
          spec.commandLine().getErr());
      return;
    }
    var printer = new ObjectPrinter<>(kind, output, env.clock(), spec.commandLine().getOut());
    if (watch) {
      Predicate<T> filter = o -> target.map(n -> n.equals(o.metadata().name())).orElse(true);
      new ListWatch<>(api, kind, labels, filter).run(new Sink<>(kind, target, printer));
      return;
    }
    if (target.isPresent()) {
      printer.printOne(api.get(kind, target.get()).orElseThrow(() -> notFound(kind, target.get())));
      return;
    }
    printer.printList(
        inListingOrder(
            kind, api.list(kind, labels).items())); // a document even when empty, for `| jq`
  }

  /** In the kind's listing order (events oldest first, as kubectl lists them; the rest by name). */
  private <T extends ApiObject> List<T> inListingOrder(Kind<T> kind, List<T> items) {
    return KindTables.of(kind, env.clock().instant()).inOrder(items);
  }

  /** {@code qm get plugins [NODE]}: one row per plugin instance, across nodes (or on NODE). */
  private int plugins() {
    var unsupported =
        watch
            ? "--watch"
            : selector != null
                ? "--selector"
                : !output.isTable() ? "-o " + output.format().name().toLowerCase(Locale.ROOT) : "";
    if (!unsupported.isEmpty()) {
      throw new ParameterException(
          spec.commandLine(),
          "plugins take no "
              + unsupported
              + " (table and wide only); they are part of each node's status: qm get nodes -o yaml");
    }
    try (var connection = client.connect(env)) {
      var api = connection.api();
      var nodes =
          names.isEmpty()
              ? api.list(Kinds.NODE).items()
              : names.stream()
                  .map(n -> api.get(Kinds.NODE, n).orElseThrow(() -> notFound(Kinds.NODE, n)))
                  .toList();
      var table = PluginTable.of(nodes, output.format() == OutputFormat.WIDE);
      if (table.rows().isEmpty()) {
        spec.commandLine()
            .getErr()
            .println(
                "No plugins found."
                    + (nodes.isEmpty() ? "" : " (No node's agent reports a CSI plugin.)"));
        return 0;
      }
      spec.commandLine().getOut().print(table.render());
      spec.commandLine().getOut().flush();
    }
    return 0;
  }

  /** {@code task/x} as typed: any spelling of a kind, a slash, a name. */
  private InvolvedObject involved(String typed) {
    var slash = typed.indexOf('/');
    if (slash <= 0 || slash == typed.length() - 1) {
      throw new ParameterException(
          spec.commandLine(),
          "--for takes KIND/NAME, e.g. task/training-workers-0; got '" + typed + "'");
    }
    var kind = typed.substring(0, slash);
    if (kind.equalsIgnoreCase(InvolvedObject.CONTROLLERS.kind())) {
      return new InvolvedObject(InvolvedObject.CONTROLLERS.kind(), typed.substring(slash + 1));
    }
    return new InvolvedObject(KindNames.resolve(kind).name(), typed.substring(slash + 1));
  }

  /**
   * The named objects, in the order named, under one header; one that does not exist is an error
   * after the others are printed (as kubectl does), or nothing with {@code --ignore-not-found}.
   */
  private <T extends ApiObject> int several(ApiClient api, Kind<T> kind, List<String> wanted) {
    var found = new ArrayList<T>();
    var missing = new ArrayList<String>();
    for (var n : new java.util.LinkedHashSet<>(wanted)) {
      api.get(kind, n).ifPresentOrElse(found::add, () -> missing.add(n));
    }
    if (!found.isEmpty() || !output.isTable()) {
      new ObjectPrinter<>(kind, output, env.clock(), spec.commandLine().getOut()).printList(found);
    }
    if (missing.isEmpty() || ignoreNotFound) {
      return 0;
    }
    var err = spec.commandLine().getErr();
    missing.forEach(n -> err.println("error: " + kind.singular() + "/" + n + " not found"));
    err.flush();
    return 1;
  }

  private static ApiException notFound(Kind<?> kind, String name) {
    return new ApiException(Reason.NotFound, kind.singular() + "/" + name + " not found");
  }

  /** Prints what the watch sees; a named object that does not exist is an error, as without -w. */
  private final class Sink<T extends ApiObject> implements WatchSink<T> {
    private final Kind<T> kind;
    private final Optional<String> target;
    private final ObjectPrinter<T> printer;

    Sink(Kind<T> kind, Optional<String> target, ObjectPrinter<T> printer) {
      this.kind = kind;
      this.target = target;
      this.printer = printer;
    }

    @Override
    public void listed(List<T> objects) {
      if (target.isPresent() && objects.isEmpty()) {
        throw notFound(kind, target.get());
      }
      printer.startStream(inListingOrder(kind, objects));
    }

    @Override
    public void changed(WatchEvent.Type type, T object) {
      if (type == WatchEvent.Type.DELETED) {
        printer.streamDeleted(object);
      } else {
        printer.streamOne(object);
      }
    }

    @Override
    public void relisted() {
      var err = spec.commandLine().getErr();
      err.println("note: watch history was compacted; listed " + kind.plural() + " again");
      err.flush();
    }
  }
}
