/**
 * Leader election among controller instances through a lease key in the store ({@link
 * dev.quartermaster.control.leader.LeaderElector}; 15 s lease, 10 s renew deadline, 2 s retry), and
 * the fence that stops a deposed leader's writes ({@link
 * dev.quartermaster.control.leader.FencedApiClient}). The elector takes a {@code Store} rather than
 * an {@code ApiClient}: the API has no lease kind, and the lease must not depend on the
 * controllers' own write path.
 */
package dev.quartermaster.control.leader;
