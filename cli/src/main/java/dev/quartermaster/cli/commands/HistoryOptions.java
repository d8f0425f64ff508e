package dev.quartermaster.cli.commands;

import dev.quartermaster.cli.CliException;
import dev.quartermaster.store.compaction.HistoryPlan;
import picocli.CommandLine.Option;

/**
 * {@code --history} and {@code --history-bytes}, shared by {@code qm server} and {@code qm up}: how
 * much store history watches can resume from. Every minute the compactor drops what is older than
 * either bound allows; whichever bound asks for more wins.
 */
public final class HistoryOptions {
  @Option(
      names = "--history",
      paramLabel = "REVISIONS",
      defaultValue = "10000",
      description =
          "store revisions a watch can resume from; older history is compacted every minute (default: ${DEFAULT-VALUE})")
  long revisions = HistoryPlan.Limits.DEFAULT_REVISIONS;

  @Option(
      names = "--history-bytes",
      paramLabel = "SIZE",
      defaultValue = "256MiB",
      converter = ByteSizeConverter.class,
      description =
          "most bytes of superseded and deleted values kept for watches (current values never count);"
              + " the oldest history beyond it is compacted too, even within --history (e.g. 64MiB, 1GiB; default: ${DEFAULT-VALUE})")
  long bytes = HistoryPlan.Limits.DEFAULT_BYTES;

  /** The bounds, or a CliException naming the flag that is out of range. */
  HistoryPlan.Limits limits() {
    if (revisions < 1) {
      throw new CliException("--history: must be >= 1, got " + revisions);
    }
    if (bytes < 1) {
      throw new CliException("--history-bytes: must be at least 1 byte, got " + bytes);
    }
    return new HistoryPlan.Limits(revisions, bytes);
  }
}
