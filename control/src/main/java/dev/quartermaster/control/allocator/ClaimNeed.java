package dev.quartermaster.control.allocator;

import dev.quartermaster.api.claim.DeviceRequest;
import java.util.List;

/** What one claim asks for, as the placement sees it. */
public record ClaimNeed(String claim, List<DeviceRequest> requests) {
  public ClaimNeed {
    requests = List.copyOf(requests);
  }

  public int count() {
    return requests.stream().mapToInt(DeviceRequest::count).sum();
  }
}
