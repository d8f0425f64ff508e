package dev.quartermaster.cli.commands;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.DeleteResult;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.cli.CliEnvironment;
import dev.quartermaster.cli.CliException;
import dev.quartermaster.cli.VersionInfo;
import dev.quartermaster.cli.apply.ManifestReader;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code qm delete KIND NAME}, {@code qm delete KIND -l SELECTOR} and {@code qm delete -f FILE}:
 * each object is deleted at once, or marked for deletion with the finalizers it waits for, one line
 * each.
 */
@Command(
    name = "delete",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description =
        "Delete objects: one by name, those of a kind matching a label selector, or those in manifests.")
public final class DeleteCommand implements Callable<Integer> {
  private final CliEnvironment env;

  @Spec private CommandSpec spec;

  @Mixin private ClientOptions client = new ClientOptions();

  @Parameters(
      index = "0",
      arity = "0..1",
      paramLabel = "KIND",
      completionCandidates = KindCandidates.class)
  private String kindName;

  @Parameters(index = "1..*", arity = "0..*", paramLabel = "NAME")
  private List<String> names = new ArrayList<>();

  @Option(
      names = "--ignore-not-found",
      description = "an object that does not exist is no error, and nothing is said of it")
  private boolean ignoreNotFound;

  @Option(
      names = {"-l", "--selector"},
      paramLabel = "SELECTOR",
      description =
          "every object of KIND whose labels match, e.g. -l quartermaster.dev/workload=training")
  private String selector;

  @Option(
      names = {"-f", "--filename"},
      paramLabel = "FILE|DIR|-",
      description =
          "the objects of a manifest file, a directory of them, or - for standard input (repeatable)")
  private List<String> files = new ArrayList<>();

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      defaultValue = "60s",
      converter = DurationConverter.class,
      description =
          "with -f: how long an object refused for what the file's other deletions change (a queue"
              + " that still admits one of its workloads) is tried again (default: ${DEFAULT-VALUE})")
  private java.time.Duration timeout;

  public DeleteCommand(CliEnvironment env) {
    this.env = env;
  }

  @Override
  public Integer call() {
    var targets = targets();
    var out = spec.commandLine().getOut();
    try (var connection = client.connect(env)) {
      var api = connection.api();
      var resolved = targets.resolve(api);
      if (resolved.isEmpty()) {
        spec.commandLine().getErr().println("No resources found");
        spec.commandLine().getErr().flush();
        return 0;
      }
      var missing = 0;
      var refused = new ArrayList<Target>();
      var waitForOthers = targets instanceof Targets.Listed l && l.fromFiles();
      for (var target : resolved) {
        try {
          boolean found =
              delete(
                  api,
                  target.kind(),
                  target.name(),
                  out,
                  targets.tolerateMissing() || ignoreNotFound,
                  ignoreNotFound);
          missing += found || ignoreNotFound || targets instanceof Targets.Selected ? 0 : 1;
        } catch (ApiException e) {
          if (!waitForOthers || !e.is(Reason.Conflict)) {
            throw e;
          }
          // A queue that still admits a workload this file deletes, say: its turn comes again.
          out.println(
              target.kind().singular() + "/" + target.name() + ": waiting: " + e.getMessage());
          out.flush();
          refused.add(target);
        }
      }
      retryRefused(api, refused, out);
      return missing == 0
          ? 0
          : 1; // a manifest's object that was not there fails the command, as kubectl's
    }
  }

  /**
   * Tries the objects refused for a conflict again, every half second until {@code --timeout}: what
   * refused them (a workload still admitted while its workers stop) goes with the objects deleted
   * before them. The last refusal is the command's error if one still stands at the deadline.
   */
  private void retryRefused(ApiClient api, List<Target> refused, PrintWriter out) {
    var deadline = env.clock().instant().plus(timeout);
    var left = new ArrayList<>(refused);
    while (!left.isEmpty()) {
      ApiException last = null;
      for (var it = left.iterator(); it.hasNext(); ) {
        var target = it.next();
        try {
          delete(api, target.kind(), target.name(), out, true, ignoreNotFound);
          it.remove();
        } catch (ApiException e) {
          if (!e.is(Reason.Conflict)) {
            throw e;
          }
          last = e;
        }
      }
      if (left.isEmpty()) {
        break;
      }
      if (!env.clock().instant().isBefore(deadline)) {
        throw new CliException(
            "still refused after " + timeout.toSeconds() + "s (--timeout): " + last.getMessage());
      }
      try {
        Thread.sleep(500);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CliException("interrupted while waiting to delete " + left);
      }
    }
  }

  /** Which form was given; anything else is a usage error that says the three forms. */
  private Targets targets() {
    boolean byFile = !files.isEmpty();
    if (byFile && (kindName != null || selector != null)) {
      throw usage("-f takes no KIND, NAME or --selector: the manifests name the objects");
    }
    if (byFile) {
      var manifests = new ManifestReader(env).read(files);
      if (manifests.isEmpty()) {
        throw new CliException("no objects in " + String.join(", ", files));
      }
      return new Targets.Listed(
          manifests.stream()
              .map(m -> new Target(Kinds.of(m.object()), m.object().metadata().name()))
              .sorted(java.util.Comparator.comparingInt(t -> DeleteOrder.rank(t.kind())))
              .toList(),
          true);
    }
    if (kindName == null) {
      throw usage("say what to delete: KIND NAME, KIND -l SELECTOR, or -f FILE");
    }
    var named = KindSlashName.split(kindName, names, spec.commandLine());
    var kind = KindNames.resolve(named.kind());
    if (selector != null && !named.names().isEmpty()) {
      throw usage("a NAME and --selector cannot be used together");
    }
    if (selector != null) {
      return new Targets.Selected(kind, LabelSelector.parse(selector));
    }
    if (named.names().isEmpty()) {
      throw usage(
          "which " + kind.singular() + "? give its NAME, or -l SELECTOR for those matching labels");
    }
    return new Targets.Listed(
        new java.util.LinkedHashSet<>(named.names())
            .stream().map(n -> new Target(kind, n)).toList(),
        false);
  }

  /** Deletes one object and says what happened; false when it was not there. */
  private static boolean delete(
      ApiClient api,
      Kind<?> kind,
      String name,
      PrintWriter out,
      boolean tolerateMissing,
      boolean quietlyMissing) {
    var ref = kind.singular() + "/" + name;
    DeleteResult<?> result;
    try {
      result = api.delete(kind, name);
    } catch (ApiException e) {
      if (!e.is(Reason.NotFound) || !tolerateMissing) {
        throw e;
      }
      if (!quietlyMissing) {
        out.println(ref + " not found");
        out.flush();
      }
      return false;
    }
    switch (result) {
      case DeleteResult.Deleted<?> d -> out.println(ref + " deleted");
      case DeleteResult.Terminating<?> t ->
          out.println(
              ref
                  + " marked for deletion (waiting for finalizers: "
                  + String.join(", ", t.object().metadata().finalizers())
                  + ")");
    }
    out.flush();
    return true;
  }

  private ParameterException usage(String message) {
    return new ParameterException(spec.commandLine(), message);
  }

  private record Target(Kind<?> kind, String name) {}

  /**
   * The objects a command names: a list (by name or manifests), or those matching a selector when
   * it runs.
   */
  private sealed interface Targets {
    List<Target> resolve(ApiClient api);

    /**
     * With manifests, one object already gone is said and the rest still deleted, as kubectl does.
     */
    boolean tolerateMissing();

    /**
     * @param fromFiles the objects of manifests: deleted in {@link DeleteOrder}, and one refused
     *     for what deleting the others changes is tried again (see {@link DeleteCommand#call})
     */
    record Listed(List<Target> targets, boolean fromFiles) implements Targets {
      @Override
      public List<Target> resolve(ApiClient api) {
        return targets;
      }

      @Override
      public boolean tolerateMissing() {
        return targets.size() > 1;
      }
    }

    record Selected(Kind<?> kind, LabelSelector selector) implements Targets {
      @Override
      public List<Target> resolve(ApiClient api) {
        return api.list(kind, selector).items().stream()
            .map(o -> new Target(kind, ((ApiObject) o).metadata().name()))
            .toList();
      }

      @Override
      public boolean tolerateMissing() {
        return true; // deleted by someone else between the list and the delete: nothing left to do
      }
    }
  }
}
