package dev.quartermaster.kubelet.prepare;

import java.util.Objects;

/** One claim's answer to NodeUnprepareResources. */
public sealed interface ClaimUnprepareResult {

  /** The claim holds nothing here now (it may never have): an empty error to the kubelet. */
  record Unprepared() implements ClaimUnprepareResult {}

  /** The ledger could not be written; the kubelet calls again. */
  record NotUnprepared(String error) implements ClaimUnprepareResult {
    public NotUnprepared {
      Objects.requireNonNull(error, "error");
      if (error.isEmpty()) {
        throw new IllegalArgumentException("a failed unprepare needs an error text");
      }
    }
  }
}
