package dev.quartermaster.agent.mig;

/** The GPU said no, and why: NVML's refusal as the agent acts on it. */
public final class MigRefusedException extends Exception {
  /** The refusals the agent tells apart. */
  public enum Refusal {
    /** NVML_ERROR_IN_USE: a process has the GPU or the instance open (mode change, destroy). */
    InUse,
    /** NVML_ERROR_INSUFFICIENT_RESOURCES: the placement overlaps an instance that exists. */
    InsufficientResources,
    /** NVML_ERROR_NOT_SUPPORTED / NO_PERMISSION: this GPU or this process cannot do it. */
    NotSupported,
    /** Anything else NVML answered. */
    Failed
  }

  private final Refusal refusal;

  public MigRefusedException(Refusal refusal, String message) {
    super(message);
    this.refusal = refusal;
  }

  /** NVML's refusal {@code e} as the agent acts on it, keeping NVML's words. */
  public static MigRefusedException of(dev.quartermaster.agent.nvml.NvmlException e) {
    var refusal =
        switch (e.code()) {
          case dev.quartermaster.agent.nvml.NvmlReturn.IN_USE -> Refusal.InUse;
          case dev.quartermaster.agent.nvml.NvmlReturn.INSUFFICIENT_RESOURCES ->
              Refusal.InsufficientResources;
          case dev.quartermaster.agent.nvml.NvmlReturn.NOT_SUPPORTED,
              dev.quartermaster.agent.nvml.NvmlReturn.NO_PERMISSION ->
              Refusal.NotSupported;
          default -> Refusal.Failed;
        };
    return new MigRefusedException(refusal, e.getMessage());
  }

  public Refusal refusal() {
    return refusal;
  }
}
