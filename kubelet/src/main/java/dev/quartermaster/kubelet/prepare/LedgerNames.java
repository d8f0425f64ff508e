package dev.quartermaster.kubelet.prepare;

import dev.quartermaster.api.validation.Names;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The name a Kubernetes claim gets in the ledger. The ledger keys on the uid; its name is for
 * people and must be a DNS label, while a ResourceClaim's name is a DNS subdomain (dots, up to 253
 * characters). A name that is a label is kept; any other is made one: dots become dashes and a name
 * still too long is cut, with a hash of the whole name at the end so two long names stay apart. The
 * plugin logs the claim's full namespace/name with every decision.
 */
final class LedgerNames {
  private static final int MAX = 63;
  private static final int HASH_CHARS = 8;

  private LedgerNames() {}

  static String of(String claimName) {
    if (Names.isDnsLabel(claimName)) {
      return claimName;
    }
    var label = claimName.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9-]", "-");
    if (label.length() > MAX || !Names.isDnsLabel(label)) {
      var cut = label.substring(0, Math.min(label.length(), MAX - HASH_CHARS - 1));
      cut = cut.replaceAll("^-+|-+$", "");
      label = (cut.isEmpty() ? "claim" : cut) + "-" + hash(claimName);
    }
    return label;
  }

  private static String hash(String text) {
    try {
      var digest =
          MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest).substring(0, HASH_CHARS);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
