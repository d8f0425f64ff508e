package dev.quartermaster.cli.commands;

import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import java.util.List;

/**
 * The order {@code qm delete -f} deletes a file's objects in: what uses something before what it
 * uses, so that a workload goes before the queue that admits it and the classes its claims name,
 * whatever order the file lists them in. Within a kind the file's order is kept.
 */
final class DeleteOrder {
  private DeleteOrder() {}

  /** First deleted first: users, then what they use, then the system's own records. */
  private static final List<Kind<?>> ORDER =
      List.of(
          Kinds.WORKLOAD,
          Kinds.TASK,
          Kinds.RESOURCE_CLAIM,
          Kinds.COMPUTE_DOMAIN,
          Kinds.VOLUME,
          Kinds.QUEUE,
          Kinds.PRIORITY_CLASS,
          Kinds.DEVICE_CLASS,
          Kinds.EVENT,
          Kinds.GANG_LEDGER,
          Kinds.QUOTA_LEDGER,
          Kinds.NODE_ALLOCATION,
          Kinds.DEVICE_SLICE,
          Kinds.NODE);

  /** Where {@code kind} goes; a kind not listed goes last. */
  static int rank(Kind<?> kind) {
    int i = ORDER.indexOf(kind);
    return i < 0 ? ORDER.size() : i;
  }
}
