package dev.quartermaster.api.validation;

/**
 * The name rules. Names become paths, file names (CDI specs, checkpoints) and labels, so only a
 * safe alphabet is accepted: no dots in labels, no slashes, no "..".
 */
public final class Names {
  public static final int MAX_LABEL = 63;
  public static final String DNS_LABEL_RULE =
      "must be a DNS label: lower-case letters, digits and '-', "
          + "starting and ending with a letter or digit, at most 63 characters";
  public static final String DNS_SUBDOMAIN_RULE =
      "must be a DNS subdomain: DNS labels joined by '.', " + "at most 253 characters";

  private Names() {}

  /**
   * Whether {@code name} may name an object of {@code kind}: a DNS label, or for a device class a
   * DNS subdomain, as in Kubernetes ({@code mig-3g.71gb} names a MIG profile by its label).
   */
  public static boolean isObjectName(dev.quartermaster.api.meta.Kind<?> kind, String name) {
    return kind == dev.quartermaster.api.meta.Kinds.DEVICE_CLASS
        ? isDnsSubdomain(name)
        : isDnsLabel(name);
  }

  /** The rule {@link #isObjectName} holds {@code kind}'s names to, in a user's words. */
  public static String objectNameRule(dev.quartermaster.api.meta.Kind<?> kind) {
    return kind == dev.quartermaster.api.meta.Kinds.DEVICE_CLASS
        ? DNS_SUBDOMAIN_RULE
        : DNS_LABEL_RULE;
  }

  // Written out rather than as regular expressions: every write validates every name and label
  // of its object, and a matcher per name was most of the cost of validation.

  public static boolean isDnsLabel(String s) {
    return isDnsLabel(s, 0, s.length());
  }

  public static boolean isDnsSubdomain(String s) {
    if (s.isEmpty() || s.length() > 253) {
      return false;
    }
    int from = 0;
    while (true) {
      int dot = s.indexOf('.', from);
      int end = dot < 0 ? s.length() : dot;
      if (!isDnsLabel(s, from, end)) {
        return false;
      }
      if (dot < 0) {
        return true;
      }
      from = dot + 1;
    }
  }

  /**
   * {@code [prefix/]name}, where prefix is a DNS subdomain and name is up to 63 safe characters.
   */
  public static boolean isQualifiedName(String s) {
    var slash = s.indexOf('/');
    var prefixOk = slash < 0 || isDnsSubdomain(s.substring(0, slash));
    int from = slash + 1;
    return prefixOk && s.length() - from <= MAX_LABEL && isLabelName(s, from, s.length());
  }

  public static boolean isLabelValue(String s) {
    return s.isEmpty() || (s.length() <= MAX_LABEL && isLabelName(s, 0, s.length()));
  }

  /** {@code [A-Za-z_][A-Za-z0-9_]*}. */
  public static boolean isEnvName(String s) {
    if (s.isEmpty() || isDigit(s.charAt(0))) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!isLetter(c) && !isDigit(c) && c != '_') {
        return false;
      }
    }
    return true;
  }

  /** {@code s[from, end)} as {@code [a-z0-9]([-a-z0-9]*[a-z0-9])?}, at most 63 characters. */
  private static boolean isDnsLabel(String s, int from, int end) {
    int length = end - from;
    if (length < 1 || length > MAX_LABEL || s.charAt(from) == '-' || s.charAt(end - 1) == '-') {
      return false;
    }
    for (int i = from; i < end; i++) {
      char c = s.charAt(i);
      if (!(c >= 'a' && c <= 'z') && !isDigit(c) && c != '-') {
        return false;
      }
    }
    return true;
  }

  /** {@code s[from, end)} as {@code [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?}. */
  private static boolean isLabelName(String s, int from, int end) {
    if (end <= from || !isAlphanumeric(s.charAt(from)) || !isAlphanumeric(s.charAt(end - 1))) {
      return false;
    }
    for (int i = from; i < end; i++) {
      char c = s.charAt(i);
      if (!isAlphanumeric(c) && c != '-' && c != '_' && c != '.') {
        return false;
      }
    }
    return true;
  }

  private static boolean isAlphanumeric(char c) {
    return isLetter(c) || isDigit(c);
  }

  private static boolean isLetter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }
}
