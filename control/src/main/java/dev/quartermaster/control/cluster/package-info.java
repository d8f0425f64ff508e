/**
 * What every controller shares: informers over the {@link dev.quartermaster.api.client.ApiClient},
 * a queue-and-workers loop, and the labels and finalizers controllers put on objects.
 */
package dev.quartermaster.control.cluster;
