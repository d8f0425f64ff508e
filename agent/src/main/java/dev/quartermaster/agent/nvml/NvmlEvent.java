package dev.quartermaster.agent.nvml;

/**
 * One {@code nvmlEventData_t}: the device (as its handle's address, matched against the handles we
 * registered), the event type mask bit, and its data (the Xid for XID events, 999 if unknown).
 */
public record NvmlEvent(
    long device, long eventType, long eventData, int gpuInstanceId, int computeInstanceId) {
  /** {@code nvmlEventTypeXidCriticalError}. */
  public static final long XID_CRITICAL_ERROR = 0x8L;

  /** The instance ids of an event that names no MIG instance (NVML's 0xFFFFFFFF). */
  public static final int NO_INSTANCE = 0xFFFFFFFF;

  /** Whether the event names a GPU instance (only on a GPU in MIG mode). */
  public boolean namesInstance() {
    return gpuInstanceId != NO_INSTANCE;
  }

  public boolean isXid() {
    return (eventType & XID_CRITICAL_ERROR) != 0;
  }
}
