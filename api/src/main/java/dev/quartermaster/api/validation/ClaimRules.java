package dev.quartermaster.api.validation;

import dev.quartermaster.api.claim.ResourceClaimSpec;

/** Rules for claim specs, also used for a workload's claim templates. */
final class ClaimRules {
  static final int MAX_REQUESTS = 16;
  static final int MAX_COUNT = 64;

  private ClaimRules() {}

  static void spec(String field, ResourceClaimSpec spec, Violations v) {
    var requests = spec.requests();
    v.check(!requests.isEmpty(), field + ".requests", "must have at least 1 request");
    v.check(requests.size() <= MAX_REQUESTS, field + ".requests", "must have at most " + MAX_REQUESTS + " requests");
    v.uniqueDnsLabels(field + ".requests[*].name", requests.stream().map(r -> r.name()).toList());
    for (int i = 0; i < requests.size(); i++) {
      var r = requests.get(i);
      var at = field + ".requests[" + i + "]";
      v.dnsLabel(at + ".deviceClassName", r.deviceClassName());
      v.check(r.count() >= 1, at + ".count", "must be >= 1");
      v.check(r.count() <= MAX_COUNT, at + ".count", "must be <= " + MAX_COUNT);
      DeviceRules.selectors(at + ".selectors", r.selectors(), v);
    }
    spec.computeDomain().ifPresent(d -> v.dnsLabel(field + ".computeDomain", d));
  }
}
