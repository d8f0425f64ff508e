package dev.quartermaster.api.claim;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * How much of an MPS GPU a request wants ({@code share:} on a request of an {@code mps} class).
 *
 * @param compute percent of the GPU's compute, a multiple of 5 from 5 to 100
 * @param memory a memory cap in whole GiB, e.g. {@code 20Gi}
 */
public record ShareRequest(int compute, String memory) {
  private static final Pattern GIB = Pattern.compile("([1-9][0-9]{0,5})Gi");

  public ShareRequest {
    memory = memory == null ? "" : memory;
  }

  /** {@link #memory} in GiB, or empty if it is not a whole number of GiB. */
  public Optional<Integer> memoryGiB() {
    var m = GIB.matcher(memory);
    return m.matches() ? Optional.of(Integer.parseInt(m.group(1))) : Optional.empty();
  }
}
