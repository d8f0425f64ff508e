package dev.quartermaster.cli;

import java.io.PrintWriter;
import java.util.function.BooleanSupplier;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

/**
 * Turns a failed command into {@code error: <reason>} on stderr and exit code 1. Expected failures
 * (API errors, {@link CliException}) never show a stack trace unless debugging is on; anything else
 * is a bug or an I/O failure and says how to see more.
 */
public final class ErrorReporter implements IExecutionExceptionHandler {
  public static final int EXIT_ERROR = ErrorLines.EXIT_ERROR;

  private final BooleanSupplier debug;

  public ErrorReporter(BooleanSupplier debug) {
    this.debug = debug;
  }

  @Override
  public int handleExecutionException(
      Exception ex, CommandLine commandLine, ParseResult parseResult) {
    var err = commandLine.getErr();
    report(ex, err, debug.getAsBoolean());
    err.flush();
    return EXIT_ERROR;
  }

  /** As {@link ErrorLines#report}. */
  public static void report(Throwable ex, PrintWriter err, boolean debug) {
    ErrorLines.report(ex, err, debug);
  }
}
