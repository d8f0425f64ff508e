/**
 * The controllers: the {@linkplain dev.quartermaster.control.allocator allocator}, the {@linkplain
 * dev.quartermaster.control.workload workload controller}, {@linkplain
 * dev.quartermaster.control.lifecycle task and node lifecycle}, and {@linkplain
 * dev.quartermaster.control.leader leader election}; {@link dev.quartermaster.control.ControlPlane}
 * wires them.
 *
 * <p>Every controller is a reconcile function over informer caches, driven by a work queue, and
 * reaches the cluster only through {@link dev.quartermaster.api.client.ApiClient}; it keeps time
 * with an {@link dev.quartermaster.core.env.Env}, so the same code runs in the server and, one
 * thread and one seed, in the simulation.
 */
package dev.quartermaster.control;
