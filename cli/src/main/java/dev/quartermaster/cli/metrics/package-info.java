/**
 * The cluster's metrics for {@code /metrics}, at the edge where Micrometer lives: what the
 * controllers hold (devices, claims, tasks, nodes, counted from their caches at scrape time), how
 * the controllers work (over control's {@code ControllerMetrics}), how long claims wait for
 * allocation, and, for {@code qm up}'s in-process agents, prepare latency and ledger fsyncs.
 */
package dev.quartermaster.cli.metrics;
