package dev.quartermaster.api.validation;

import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ShareRequest;
import dev.quartermaster.api.device.mig.MigSelection;
import dev.quartermaster.api.device.mps.MpsShares;
import dev.quartermaster.api.domain.ComputeDomainSpec;

/** Rules for claim specs, also used for a workload's claim templates. */
final class ClaimRules {
  static final int MAX_REQUESTS = 16;
  static final int MAX_COUNT = 64;

  private ClaimRules() {}

  static void spec(String field, ResourceClaimSpec spec, Violations v) {
    spec(field, spec, false, v);
  }

  /**
   * @param domainFromWorkload the spec is a workload's claim template, and the workload names a
   *     domain
   */
  static void spec(String field, ResourceClaimSpec spec, boolean domainFromWorkload, Violations v) {
    var requests = spec.requests();
    v.check(!requests.isEmpty(), field + ".requests", "must have at least 1 request");
    v.check(
        requests.size() <= MAX_REQUESTS,
        field + ".requests",
        "must have at most " + MAX_REQUESTS + " requests");
    v.uniqueDnsLabels(field + ".requests[*].name", requests.stream().map(r -> r.name()).toList());
    for (int i = 0; i < requests.size(); i++) {
      var r = requests.get(i);
      var at = field + ".requests[" + i + "]";
      v.dnsSubdomain(at + ".deviceClassName", r.deviceClassName());
      v.check(r.count() >= 1, at + ".count", "must be >= 1");
      v.check(r.count() <= MAX_COUNT, at + ".count", "must be <= " + MAX_COUNT);
      DeviceRules.selectors(at + ".selectors", r.selectors(), v);
      if (MigSelection.selectsSlices(r.selectors())) {
        DeviceRules.slices(at + ".selectors", r.selectors(), v);
      }
      r.share().ifPresent(share -> share(at + ".share", share, v));
    }
    spec.computeDomain().ifPresent(d -> v.dnsLabel(field + ".computeDomain", d));
    channelsNeedDomain(field, spec, domainFromWorkload || spec.computeDomain().isPresent(), v);
  }

  /** An MPS share's size: the request policy of every MPS GPU. */
  private static void share(String field, ShareRequest share, Violations v) {
    v.check(
        share.compute() >= MpsShares.COMPUTE_STEP
            && share.compute() <= 100
            && share.compute() % MpsShares.COMPUTE_STEP == 0,
        field + ".compute",
        "must be a multiple of " + MpsShares.COMPUTE_STEP + " from 5 to 100 (percent of the GPU)");
    v.check(
        share.memoryGiB().isPresent(),
        field + ".memory",
        "must be a whole number of GiB from 1Gi, like 20Gi (a hard memory cap)");
  }

  /**
   * IMEX channels are only any use inside a compute domain (its daemon on the node is what makes
   * them work), so a request for them without one is refused rather than left to fail at run time.
   */
  static void channelsNeedDomain(
      String field, ResourceClaimSpec spec, boolean hasDomain, Violations v) {
    var requests = spec.requests();
    for (int i = 0; i < requests.size(); i++) {
      v.check(
          hasDomain
              || !requests.get(i).deviceClassName().equals(ComputeDomainSpec.CHANNEL_DEVICE_CLASS),
          field + ".requests[" + i + "].deviceClassName",
          "asks for IMEX channels ('"
              + ComputeDomainSpec.CHANNEL_DEVICE_CLASS
              + "'), which need a compute domain: set "
              + field
              + ".computeDomain, or the workload's spec.computeDomain");
    }
  }
}
