package dev.quartermaster.cli.describe;

import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QueueView;
import dev.quartermaster.api.queue.Standing;
import dev.quartermaster.api.workload.Workload;

/** What the queue describers list to build a {@link QueueView}: one place, one set of lists. */
final class QueueLists {
  private QueueLists() {}

  static QueueView viewOf(Queue queue, DescribeContext context) {
    var api = context.api();
    return QueueView.of(
        queue,
        api.list(Kinds.QUEUE).items(),
        api.list(Kinds.QUOTA_LEDGER).items(),
        api.list(Kinds.WORKLOAD).items(),
        api.list(Kinds.PRIORITY_CLASS).items(),
        api.list(Kinds.DEVICE_CLASS).items());
  }

  static Standing standingOf(Workload w, DescribeContext context) {
    var api = context.api();
    return QueueView.standingOf(
        w,
        api.list(Kinds.QUEUE).items(),
        api.list(Kinds.QUOTA_LEDGER).items(),
        api.list(Kinds.WORKLOAD).items(),
        api.list(Kinds.PRIORITY_CLASS).items(),
        api.list(Kinds.DEVICE_CLASS).items());
  }
}
