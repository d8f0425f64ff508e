/**
 * The kubelet's claims ({@link dev.quartermaster.kubelet.claims.KubeClaim}) and where their
 * allocated devices come from ({@link dev.quartermaster.kubelet.claims.ClaimSource}): the API
 * server in a cluster ({@link dev.quartermaster.kubelet.kube.ApiClaimSource}), a map in tests
 * ({@link dev.quartermaster.kubelet.claims.InMemoryClaimSource}).
 */
package dev.quartermaster.kubelet.claims;
