package dev.quartermaster.agent.cdi;

import dev.quartermaster.agent.names.SafeNames;

/** How the agent names CDI things: vendor, kind, device names, spec files. */
public final class CdiNames {
  public static final String VENDOR = "quartermaster.dev";

  private CdiNames() {}

  /** {@code quartermaster.dev/<class>}. */
  public static String kind(String deviceClass) {
    return VENDOR + "/" + deviceClass;
  }

  /**
   * {@code <claim-uid>-<device>}: unique per claim, never reused (the claim uid is never reused).
   */
  public static String deviceName(String claimUid, String device) {
    return SafeNames.requireClaimUid(claimUid) + "-" + SafeNames.requireDeviceName(device);
  }

  /** {@code quartermaster.dev/<class>=<claim-uid>-<device>}, what a container runtime is given. */
  public static String qualified(String deviceClass, String claimUid, String device) {
    return kind(deviceClass) + "=" + deviceName(claimUid, device);
  }

  /**
   * {@code quartermaster.dev-<class>_<claim-uid>.json}, the CDI convention {@code
   * <vendor>-<class>_<name>}.
   */
  public static String specFileName(String deviceClass, String claimUid) {
    return VENDOR
        + "-"
        + SafeNames.requireDeviceName(deviceClass)
        + "_"
        + SafeNames.requireClaimUid(claimUid)
        + ".json";
  }
}
