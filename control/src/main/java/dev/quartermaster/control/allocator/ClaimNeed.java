package dev.quartermaster.control.allocator;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.device.DeviceClass;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** What one claim asks for, as the placement sees it. */
public record ClaimNeed(String claim, List<DeviceRequest> requests) {
  public ClaimNeed {
    requests = List.copyOf(requests);
  }

  public int count() {
    return requests.stream().mapToInt(DeviceRequest::count).sum();
  }

  /** What each of {@code claims} asks for. */
  static List<ClaimNeed> of(List<ResourceClaim> claims) {
    return claims.stream()
        .map(c -> new ClaimNeed(c.metadata().name(), c.spec().requests()))
        .toList();
  }

  /** Why {@code needs} cannot be placed anywhere: a request names a class that does not exist. */
  static Optional<String> missingClass(List<ClaimNeed> needs, Map<String, DeviceClass> classes) {
    for (var need : needs) {
      for (var r : need.requests()) {
        if (!classes.containsKey(r.deviceClassName())) {
          return Optional.of(
              "claim "
                  + need.claim()
                  + " request "
                  + r.name()
                  + " names device class '"
                  + r.deviceClassName()
                  + "', which does not exist");
        }
      }
    }
    return Optional.empty();
  }
}
