package dev.quartermaster.agent.mig;

import dev.quartermaster.agent.nvml.NvmlException;
import dev.quartermaster.agent.nvml.NvmlReturn;

/** The GPU said no, and why: NVML's refusal as the agent acts on it. */
public final class MigRefusedException extends Exception {
  /** The refusals the agent tells apart. */
  public enum Refusal {
    /** NVML_ERROR_IN_USE: a process has the GPU or the instance open (mode change, destroy). */
    InUse,
    /** NVML_ERROR_INSUFFICIENT_RESOURCES: the placement overlaps an instance that exists. */
    InsufficientResources,
    /** NVML_ERROR_NOT_SUPPORTED: this GPU (or this driver, or MIG mode off) cannot do it. */
    NotSupported,
    /** NVML_ERROR_NO_PERMISSION: the GPU could, this process may not (not root, a VM's guest). */
    NoPermission,
    /**
     * NVML_ERROR_RESET_REQUIRED, or a mode change left pending: it takes effect only after a GPU
     * reset (or a VM's reboot) that the agent does not do.
     */
    ResetRequired,
    /** Anything else NVML answered. */
    Failed
  }

  private final Refusal refusal;

  public MigRefusedException(Refusal refusal, String message) {
    super(message);
    this.refusal = refusal;
  }

  /** NVML's refusal {@code e} as the agent acts on it, keeping NVML's words. */
  public static MigRefusedException of(NvmlException e) {
    return new MigRefusedException(refusal(e.code()), e.getMessage());
  }

  /**
   * NVML's refusal {@code e} of {@code attempt} (which names the GPU, and the profile and placement
   * where there is one: "gpu 0 (NVIDIA H200): creating 3g.71gb@4").
   */
  public static MigRefusedException of(NvmlException e, String attempt) {
    return new MigRefusedException(refusal(e.code()), attempt + ": " + e.getMessage());
  }

  /** The refusal an NVML return code stands for. */
  public static Refusal refusal(int code) {
    return switch (code) {
      case NvmlReturn.IN_USE -> Refusal.InUse;
      case NvmlReturn.INSUFFICIENT_RESOURCES -> Refusal.InsufficientResources;
      case NvmlReturn.NOT_SUPPORTED -> Refusal.NotSupported;
      case NvmlReturn.NO_PERMISSION -> Refusal.NoPermission;
      case NvmlReturn.RESET_REQUIRED -> Refusal.ResetRequired;
      default -> Refusal.Failed;
    };
  }

  public Refusal refusal() {
    return refusal;
  }
}
