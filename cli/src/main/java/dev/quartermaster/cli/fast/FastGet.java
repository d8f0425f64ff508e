package dev.quartermaster.cli.fast;

import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.ListPage;
import dev.quartermaster.api.client.http.HttpApiClient;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.cli.CliEnvironment;
import dev.quartermaster.cli.ErrorLines;
import dev.quartermaster.cli.Invocation;
import dev.quartermaster.cli.commands.KindNames;
import dev.quartermaster.cli.config.ClientConfig;
import dev.quartermaster.cli.config.Connection;
import dev.quartermaster.cli.output.TableListing;
import java.io.PrintWriter;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code qm get KIND [NAME]} as a table ({@code -o wide}, {@code -l SELECTOR} and the client flags
 * allowed), run without the command tree. The tree is built by reflection over every option of the
 * command, a cost paid before any work: with the server rendering the table ({@code ?as=table}) and
 * the config file read as text, reading the command line here leaves a listing only the JVM's start
 * and one request.
 *
 * <p>{@link #parse} takes only command lines whose meaning is certain and returns empty for
 * anything else (help, {@code -w}, {@code -o yaml}, {@code --for}, {@code plugins}, a flag given
 * twice, an unknown kind or flag, a malformed selector): the command tree then runs the command and
 * reports what is wrong in its own words. What is printed, the table and the errors, is the tree's
 * own code ({@link TableListing}, {@link ErrorLines}), so both paths print the same.
 */
public record FastGet(
    Kind<?> kind,
    Optional<String> name,
    LabelSelector selector,
    boolean wide,
    boolean json,
    Map<String, String> clientFlags) {
  private static final Set<String> CLIENT_FLAGS = Invocation.CLIENT_FLAGS;
  private static final Set<String> OUTPUT = Invocation.OUTPUT_FLAGS;
  private static final Set<String> SELECTOR = Set.of("-l", "--selector");
  private static final Set<String> PLUGINS = Set.of("plugin", "plugins");

  public FastGet {
    clientFlags = Map.copyOf(clientFlags);
  }

  /** The command line ({@code get …}) as this reads it, or empty. */
  public static Optional<FastGet> parse(Invocation line) {
    if (!line.command().filter("get"::equals).isPresent()) {
      return Optional.empty();
    }
    var args = line.forTree();
    var flags = new HashMap<String, String>();
    var positional = new java.util.ArrayList<String>();
    for (int i = 1; i < args.length; i++) {
      var arg = args[i];
      if (!arg.startsWith("-")) {
        positional.add(arg);
        continue;
      }
      var option = option(arg);
      if (option.isEmpty()) {
        return Optional.empty();
      }
      var value = attachedValue(arg, option.get());
      if (value.isEmpty()) {
        if (i + 1 == args.length) {
          return Optional.empty();
        }
        value = Optional.of(args[++i]);
      }
      if (value.get().isEmpty()
          || value.get().startsWith("-")
          || flags.put(canonical(option.get()), value.get()) != null) {
        return Optional.empty();
      }
    }
    if (positional.size() == 1 && positional.getFirst().indexOf('/') > 0) {
      // KIND/NAME, as kubectl takes it: one object, the same listing of one row.
      var typed = positional.getFirst();
      int slash = typed.indexOf('/');
      if (slash == typed.length() - 1 || typed.indexOf('/', slash + 1) >= 0) {
        return Optional.empty();
      }
      positional =
          new java.util.ArrayList<>(List.of(typed.substring(0, slash), typed.substring(slash + 1)));
    }
    if (positional.isEmpty()
        || positional.size() > 2
        || positional.stream().anyMatch(String::isEmpty)
        || PLUGINS.contains(positional.getFirst().toLowerCase(Locale.ROOT))) {
      return Optional.empty();
    }
    var kind = KindNames.lookup(positional.getFirst());
    var output = Optional.ofNullable(flags.remove("--output")).map(o -> o.toLowerCase(Locale.ROOT));
    var typedSelector = Optional.ofNullable(flags.remove("--selector"));
    // JSON in the server's order, which is get's own but for events (oldest first).
    boolean json =
        output.filter("json"::equals).isPresent()
            && kind.filter(k -> !k.equals(Kinds.EVENT)).isPresent();
    if (kind.isEmpty()
        || (!json && output.filter(o -> !o.equals("table") && !o.equals("wide")).isPresent())
        || (positional.size() == 2 && typedSelector.isPresent())) {
      return Optional.empty();
    }
    try {
      var selector = LabelSelector.parse(typedSelector.orElse(""));
      return Optional.of(
          new FastGet(
              kind.get(),
              positional.size() == 2 ? Optional.of(positional.get(1)) : Optional.empty(),
              selector,
              output.filter("wide"::equals).isPresent(),
              json,
              flags));
    } catch (RuntimeException e) {
      return Optional.empty(); // the command tree says what is wrong with it
    }
  }

  /**
   * Lists, prints, and answers the exit code; a failure is reported as the command tree reports it.
   */
  public int run(CliEnvironment env, PrintWriter out, PrintWriter err) {
    try {
      var config =
          ClientConfig.resolve(
              flag("--server"), flag("--token-file"), flag("--ca-file"), flag("--context"), env);
      try (var connection = Connection.open(config, env.connector())) {
        if (json && connection.api() instanceof HttpApiClient http) {
          JsonListing.print(http, kind, name, selector, out);
        } else if (json) {
          throw new IllegalStateException("the lean JSON listing needs an HTTP client");
        } else {
          TableListing.print(
              connection.api(),
              kind,
              name,
              selector,
              wide,
              env.clock().instant(),
              ListPage.DEFAULT_LIMIT,
              out,
              err);
        }
      }
      return 0;
    } catch (RuntimeException e) {
      ErrorLines.report(e, err, env.variable("QM_DEBUG").filter(v -> !v.equals("0")).isPresent());
      err.flush();
      return ErrorLines.EXIT_ERROR;
    }
  }

  private Optional<String> flag(String name) {
    return Optional.ofNullable(clientFlags.get(name));
  }

  /**
   * The option {@code arg} names, long ({@code --output}, {@code --output=x}) or short ({@code -o},
   * {@code -ox}, {@code -o=x}).
   */
  private static Optional<String> option(String arg) {
    var name = arg.startsWith("--") && arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
    if (CLIENT_FLAGS.contains(name) || OUTPUT.contains(name) || SELECTOR.contains(name)) {
      return Optional.of(name);
    }
    if (arg.length() > 2
        && !arg.startsWith("--")
        && (OUTPUT.contains(arg.substring(0, 2)) || SELECTOR.contains(arg.substring(0, 2)))) {
      return Optional.of(arg.substring(0, 2));
    }
    return Optional.empty();
  }

  private static Optional<String> attachedValue(String arg, String option) {
    if (arg.length() == option.length()) {
      return Optional.empty();
    }
    var rest = arg.substring(option.length());
    return Optional.of(rest.startsWith("=") ? rest.substring(1) : rest);
  }

  private static String canonical(String option) {
    return OUTPUT.contains(option) ? "--output" : SELECTOR.contains(option) ? "--selector" : option;
  }
}
