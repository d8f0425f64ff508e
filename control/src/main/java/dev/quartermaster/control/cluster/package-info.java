/**
 * What every controller shares: informers over the {@link dev.quartermaster.api.client.ApiClient},
 * a queue-and-workers loop, the labels and finalizers controllers put on objects, and what they
 * agree a node must be to take new work ({@link dev.quartermaster.control.cluster.NodeReadiness}).
 */
package dev.quartermaster.control.cluster;
