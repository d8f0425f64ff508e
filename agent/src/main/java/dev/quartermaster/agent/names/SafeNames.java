package dev.quartermaster.agent.names;

import java.util.regex.Pattern;

/**
 * The rules for identifiers that the agent turns into file names and CDI device names. Claim uids
 * and device names arrive from the API (and from a checkpoint a person may have edited), so they
 * are checked here, once, before any ledger entry or file is written.
 *
 * <p>The alphabet is deliberately narrow: letters, digits and {@code -} inside, alphanumeric at
 * both ends. That excludes {@code /}, {@code ..}, NUL and whitespace, and it also satisfies the CDI
 * rule for device names (alphanumeric at both ends).
 */
public final class SafeNames {
  /**
   * Longer than a UUID (36), short enough for a CDI name {@code <uid>-<device>} to stay readable.
   */
  public static final int MAX_UID = 64;

  public static final int MAX_DEVICE = 63;

  public static final String UID_RULE =
      "must be 1-"
          + MAX_UID
          + " letters, digits and '-', starting and ending with a letter or digit"
          + " (no '/', '..', NUL or spaces)";
  public static final String DEVICE_RULE =
      "must be a DNS label: 1-"
          + MAX_DEVICE
          + " lower-case letters, digits and '-', starting and ending"
          + " with a letter or digit (no '/', '..', NUL or spaces)";

  private static final Pattern UID = Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?");
  private static final Pattern DEVICE = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  private SafeNames() {}

  /**
   * Returns {@code uid} if it is a safe claim uid; throws {@link UnsafeNameException} otherwise.
   */
  public static String requireClaimUid(String uid) {
    if (uid == null || uid.length() > MAX_UID || !UID.matcher(uid).matches()) {
      throw new UnsafeNameException("claim uid", String.valueOf(uid), UID_RULE);
    }
    return uid;
  }

  /**
   * Returns {@code name} if it is a safe device name; throws {@link UnsafeNameException} otherwise.
   */
  public static String requireDeviceName(String name) {
    if (name == null || name.length() > MAX_DEVICE || !DEVICE.matcher(name).matches()) {
      throw new UnsafeNameException("device name", String.valueOf(name), DEVICE_RULE);
    }
    return name;
  }

  /** Whether {@code name} is a safe device name. */
  public static boolean isDeviceName(String name) {
    return name != null && name.length() <= MAX_DEVICE && DEVICE.matcher(name).matches();
  }
}
