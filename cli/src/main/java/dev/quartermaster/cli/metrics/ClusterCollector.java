package dev.quartermaster.cli.metrics;

import dev.quartermaster.control.cluster.Informers;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * {@code qm_devices}, {@code qm_claims}, {@code qm_tasks}, {@code qm_nodes}, {@code qm_gangs} and
 * the MIG GPUs' {@code qm_mig_*} and the time-sliced GPUs' {@code qm_shared_replicas}, counted at
 * scrape time from the controllers' informer caches: the control plane holds them anyway (every
 * replica, leader or not), so a scrape costs a walk over memory and never a store list, even on a
 * 1,000-node cluster. A collector rather than gauges, because the label sets (nodes, classes,
 * condition types) come and go with the cluster.
 */
public final class ClusterCollector implements MultiCollector {
  private final Informers informers;

  public ClusterCollector(Informers informers) {
    this.informers = informers;
  }

  @Override
  public MetricSnapshots collect() {
    var census =
        ClusterCensus.of(
            informers.nodes().cache().list(),
            informers.slices().cache().list(),
            informers.claims().cache().list(),
            informers.tasks().cache().list());
    var mig =
        MigCensus.of(
            informers.nodes().cache().list(),
            informers.slices().cache().list(),
            informers.claims().cache().list());
    var byGpu = Comparator.comparing(MigGpuKey::node).thenComparing(MigGpuKey::gpu);
    var shared =
        SharedCensus.of(
            informers.nodes().cache().list(),
            informers.slices().cache().list(),
            informers.claims().cache().list());
    var mps =
        MpsCensus.of(
            informers.nodes().cache().list(),
            informers.slices().cache().list(),
            informers.claims().cache().list());
    return MetricSnapshots.of(
        gauge(
            "qm_devices",
            "devices by node, class and state (free, allocated, prepared, unhealthy)",
            census.devices(),
            Comparator.comparing(DeviceGroup::node)
                .thenComparing(DeviceGroup::deviceClass)
                .thenComparing(DeviceGroup::state),
            g -> Labels.of("node", g.node(), "class", g.deviceClass(), "state", g.state().label())),
        gauge(
            "qm_claims",
            "resource claims by phase (pending, allocated, prepared, failed)",
            census.claims(),
            Comparator.naturalOrder(),
            s -> Labels.of("phase", s.toString())),
        gauge(
            "qm_tasks",
            "tasks by phase",
            census.tasks(),
            Comparator.naturalOrder(),
            p -> Labels.of("phase", p.name())),
        gauge(
            "qm_nodes",
            "nodes by condition type and status",
            census.nodes(),
            Comparator.comparing(NodeCondition::type).thenComparing(NodeCondition::status),
            c -> Labels.of("condition", c.type(), "status", c.status().name())),
        gauge(
            "qm_gangs",
            "gangs by state (Waiting: holding nothing until all its members fit at once)",
            GangCensus.of(informers.workloads().cache().list()),
            Comparator.naturalOrder(),
            s -> Labels.of("state", s.name())),
        gauge(
            "qm_mig_slices",
            "MIG slices by node, GPU, profile and state (held; free: a claim could still get"
                + " them now, side by side)",
            mig.slices(),
            Comparator.comparing(MigSliceGroup::node)
                .thenComparing(MigSliceGroup::gpu)
                .thenComparing(MigSliceGroup::profile)
                .thenComparing(MigSliceGroup::state),
            g ->
                Labels.of(
                    "node", g.node(), "gpu", g.gpu(), "profile", g.profile(), "state", g.state())),
        gauge(
            "qm_mig_free_compute_slices",
            "compute slices (sevenths of a GPU) a claim could still get, by node and MIG GPU",
            mig.freeCompute(),
            byGpu,
            k -> Labels.of("node", k.node(), "gpu", k.gpu())),
        gauge(
            "qm_mig_fragmented",
            "1 when freed slices left a dynamic MIG GPU with room for a profile but no free"
                + " position for it (qm describe node says which)",
            mig.fragmented(),
            byGpu,
            k -> Labels.of("node", k.node(), "gpu", k.gpu())),
        gauge(
            "qm_shared_replicas",
            "replicas of time-sliced GPUs by node, GPU and state (held, free)",
            shared,
            Comparator.comparing(ReplicaGroup::node)
                .thenComparing(ReplicaGroup::gpu)
                .thenComparing(ReplicaGroup::state),
            g -> Labels.of("node", g.node(), "gpu", g.gpu(), "state", g.state())),
        gauge(
            "qm_mps_capacity",
            "MPS GPUs' compute (percent), memory (GiB) and clients by node, GPU, resource and state"
                + " (held by shares, free)",
            mps.capacity(),
            Comparator.comparing(MpsGroup::node)
                .thenComparing(MpsGroup::gpu)
                .thenComparing(MpsGroup::resource)
                .thenComparing(MpsGroup::state),
            g ->
                Labels.of(
                    "node",
                    g.node(),
                    "gpu",
                    g.gpu(),
                    "resource",
                    g.resource(),
                    "state",
                    g.state())),
        gauge(
            "qm_mps_share_limit",
            "each MPS share's limits (compute percent, memory GiB) by node, GPU, share and claim",
            mps.shares(),
            Comparator.comparing(MpsShareKey::node)
                .thenComparing(MpsShareKey::share)
                .thenComparing(MpsShareKey::resource),
            k ->
                Labels.of(
                    "node",
                    k.node(),
                    "gpu",
                    k.gpu(),
                    "share",
                    k.share(),
                    "claim",
                    k.claim(),
                    "resource",
                    k.resource())));
  }

  @Override
  public List<String> getPrometheusNames() {
    return List.of(
        "qm_devices",
        "qm_claims",
        "qm_tasks",
        "qm_nodes",
        "qm_gangs",
        "qm_mig_slices",
        "qm_mig_free_compute_slices",
        "qm_mig_fragmented",
        "qm_shared_replicas",
        "qm_mps_capacity",
        "qm_mps_share_limit");
  }

  /** One gauge, a series per key, in {@code order}. */
  static <K> GaugeSnapshot gauge(
      String name,
      String help,
      Map<K, Long> counts,
      Comparator<K> order,
      Function<K, Labels> labels) {
    var gauge = GaugeSnapshot.builder().name(name).help(help);
    counts.entrySet().stream()
        .sorted(Map.Entry.comparingByKey(order))
        .forEach(
            e ->
                gauge.dataPoint(
                    GaugeDataPointSnapshot.builder()
                        .labels(labels.apply(e.getKey()))
                        .value(e.getValue())
                        .build()));
    return gauge.build();
  }
}
