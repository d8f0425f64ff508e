package dev.quartermaster.api.validation;

import java.util.regex.Pattern;

/**
 * The name rules. Names become paths, file names (CDI specs, checkpoints) and labels, so only a
 * safe alphabet is accepted: no dots in labels, no slashes, no "..".
 */
public final class Names {
  public static final int MAX_LABEL = 63;
  public static final String DNS_LABEL_RULE = "must be a DNS label: lower-case letters, digits and '-', "
      + "starting and ending with a letter or digit, at most 63 characters";
  public static final String DNS_SUBDOMAIN_RULE = "must be a DNS subdomain: DNS labels joined by '.', "
      + "at most 253 characters";

  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern LABEL_NAME = Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");
  private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  private Names() {}

  public static boolean isDnsLabel(String s) {
    return s.length() <= MAX_LABEL && DNS_LABEL.matcher(s).matches();
  }

  public static boolean isDnsSubdomain(String s) {
    if (s.isEmpty() || s.length() > 253) {
      return false;
    }
    for (var part : s.split("\\.", -1)) {
      if (!isDnsLabel(part)) {
        return false;
      }
    }
    return true;
  }

  /** {@code [prefix/]name}, where prefix is a DNS subdomain and name is up to 63 safe characters. */
  public static boolean isQualifiedName(String s) {
    var slash = s.indexOf('/');
    var name = slash < 0 ? s : s.substring(slash + 1);
    var prefixOk = slash < 0 || isDnsSubdomain(s.substring(0, slash));
    return prefixOk && name.length() <= MAX_LABEL && LABEL_NAME.matcher(name).matches();
  }

  public static boolean isLabelValue(String s) {
    return s.isEmpty() || (s.length() <= MAX_LABEL && LABEL_NAME.matcher(s).matches());
  }

  public static boolean isEnvName(String s) {
    return ENV_NAME.matcher(s).matches();
  }
}
