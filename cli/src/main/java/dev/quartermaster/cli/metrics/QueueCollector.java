package dev.quartermaster.cli.metrics;

import dev.quartermaster.api.queue.Queue;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;

/**
 * {@code qm_queue_*}: per queue its pending and admitted workloads, and per class the devices it
 * uses, borrows and has a quota of, counted at scrape time from the queues cache (as {@link
 * ClusterCollector} counts the cluster).
 */
public final class QueueCollector implements MultiCollector {
  private static final Comparator<QueueClass> BY_QUEUE_CLASS =
      Comparator.comparing(QueueClass::queue).thenComparing(QueueClass::deviceClass);

  private final Supplier<Collection<Queue>> queues;

  public QueueCollector(Supplier<Collection<Queue>> queues) {
    this.queues = queues;
  }

  @Override
  public MetricSnapshots collect() {
    var census = QueueCensus.of(queues.get());
    return MetricSnapshots.of(
        ClusterCollector.gauge(
            "qm_queue_pending_workloads",
            "workloads waiting in the queue to be admitted",
            census.pending(),
            Comparator.naturalOrder(),
            q -> Labels.of("queue", q)),
        ClusterCollector.gauge(
            "qm_queue_admitted_workloads",
            "workloads the queue admitted that are not finished",
            census.admitted(),
            Comparator.naturalOrder(),
            q -> Labels.of("queue", q)),
        ClusterCollector.gauge(
            "qm_queue_used_devices",
            "devices the queue's admitted workloads use, by class",
            census.used(),
            BY_QUEUE_CLASS,
            QueueCollector::labels),
        ClusterCollector.gauge(
            "qm_queue_borrowed_devices",
            "of the devices the queue uses, those above its quota, lent by its cohort",
            census.borrowed(),
            BY_QUEUE_CLASS,
            QueueCollector::labels),
        ClusterCollector.gauge(
            "qm_queue_quota_devices",
            "the queue's nominal quota, by class",
            census.quota(),
            BY_QUEUE_CLASS,
            QueueCollector::labels));
  }

  @Override
  public List<String> getPrometheusNames() {
    return List.of(
        "qm_queue_pending_workloads",
        "qm_queue_admitted_workloads",
        "qm_queue_used_devices",
        "qm_queue_borrowed_devices",
        "qm_queue_quota_devices");
  }

  private static Labels labels(QueueClass k) {
    return Labels.of("queue", k.queue(), "class", k.deviceClass());
  }
}
