/**
 * The kubelet's claims ({@link dev.quartermaster.kubelet.claims.KubeClaim}) and where their
 * allocated devices come from ({@link dev.quartermaster.kubelet.claims.ClaimSource}).
 *
 * <p><b>Not yet: the real source.</b> It must GET {@code resource.k8s.io/v1} ResourceClaim {@code
 * <namespace>/<name>} from the API server (with the node's credentials) and answer:
 *
 * <ul>
 *   <li>Unavailable when the claim is not found, when its {@code metadata.uid} differs from the
 *       kubelet's (the claim was deleted and re-created: the kubelet's one is gone), or when {@code
 *       status.allocation} is unset (not allocated);
 *   <li>otherwise Allocated with the entries of {@code status.allocation.devices.results} whose
 *       {@code driver} is this plugin's driver name: {@code pool}, {@code device} and {@code
 *       request} (the same device listed for several requests is merged by the preparer).
 * </ul>
 *
 * Until then the plugin runs with {@link dev.quartermaster.kubelet.claims.UnwiredClaimSource} and
 * tests with {@link dev.quartermaster.kubelet.claims.InMemoryClaimSource}.
 */
package dev.quartermaster.kubelet.claims;
