package dev.quartermaster.kubelet.prepare;

import java.util.List;
import java.util.Objects;

/** One claim's answer to NodePrepareResources. */
public sealed interface ClaimPrepareResult {

  /** Prepared, durably: the kubelet hands {@code devices}' CDI ids to the pod's containers. */
  record Prepared(List<PreparedDevice> devices) implements ClaimPrepareResult {
    public Prepared {
      devices = List.copyOf(devices);
    }
  }

  /**
   * Not prepared; {@code error} is the claim's {@code error} in the response and the kubelet calls
   * again. Whether a retry can succeed (a device held by another claim: yes, once it is unprepared)
   * is said in the text, as the protocol has no field for it.
   */
  record NotPrepared(String error) implements ClaimPrepareResult {
    public NotPrepared {
      Objects.requireNonNull(error, "error");
      if (error.isEmpty()) {
        throw new IllegalArgumentException("a failed prepare needs an error text");
      }
    }
  }
}
