package dev.quartermaster.cli;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A failed command as the user reads it: {@code error: <reason>}, its details on lines of their
 * own, the stack only when debugging. Apart from the command tree ({@link ErrorReporter}) so that
 * the lean listing path reports with it without loading picocli.
 */
public final class ErrorLines {
  public static final int EXIT_ERROR = 1;

  private ErrorLines() {}

  /**
   * Prints {@code ex} as a failed command's {@code error:} line (and its details, and with {@code
   * debug} its stack).
   */
  public static void report(Throwable ex, PrintWriter err, boolean debug) {
    switch (ex) {
      case ApiException api when api.is(Reason.Unauthorized) ->
          print(
              err,
              headline(api),
              dev.quartermaster.cli.config.Connection.presentedToken()
                  .map(t -> List.of(t + "; a server's admin token is <data>/admin.token"))
                  .orElse(List.of()));
      case ApiException api
          when api.is(Reason.Unavailable) && api.getMessage().contains("cannot reach the server") ->
          print(
              err,
              headline(api),
              dev.quartermaster.cli.config.Connection.unreachableHint()
                  .map(List::of)
                  .orElse(List.of()));
      case ApiException api -> print(err, headline(api), detailLines(api));
      case CliException cli -> print(err, cli.getMessage(), cli.details());
      case UncheckedIOException io ->
          print(err, String.valueOf(io.getCause().getMessage()), List.of());
      default ->
          print(
              err,
              describe(ex) + (debug ? "" : " (run with --debug for the stack trace)"),
              List.of());
    }
    if (debug) {
      ex.printStackTrace(err);
    }
  }

  private static void print(PrintWriter err, String headline, List<String> details) {
    err.println("error: " + headline);
    details.forEach(d -> err.println("  " + d));
  }

  /**
   * The message, minus the violations it repeats when they are printed on lines of their own
   * ({@code workload/x is invalid: a; b} becomes {@code workload/x is invalid}).
   */
  private static String headline(ApiException api) {
    var message = api.getMessage();
    if (detailLines(api).isEmpty()) {
      return message;
    }
    var joined =
        api.error().details().stream().map(Violation::toString).collect(Collectors.joining("; "));
    if (!joined.isEmpty() && message.endsWith(joined) && message.length() > joined.length()) {
      return message.substring(0, message.length() - joined.length()).replaceAll("[:;\\s]+$", "");
    }
    return message;
  }

  // One violation already reads well inside the message; several get a line each.
  private static List<String> detailLines(ApiException api) {
    var multiline =
        (api.is(Reason.Invalid) || api.is(Reason.BadRequest)) && api.error().details().size() > 1;
    return multiline ? api.error().details().stream().map(Violation::toString).toList() : List.of();
  }

  private static String describe(Throwable ex) {
    var message = ex.getMessage();
    return message == null || message.isBlank() ? ex.getClass().getSimpleName() : message;
  }
}
