package dev.quartermaster.api.validation;

import dev.quartermaster.api.meta.ObjectMeta;

/**
 * Metadata the server owns must not come from a client on create: it would be overwritten, and a
 * client that sent it believes something (this uid, that revision) the stored object will not say.
 */
final class CreateRules {
  private static final String SERVER_OWNED = "is set by the server; leave it out on create";

  private CreateRules() {}

  static void check(ObjectMeta m, Violations v) {
    v.check(m.uid().isEmpty(), "metadata.uid", SERVER_OWNED);
    v.check(m.revision() == 0, "metadata.revision", SERVER_OWNED);
    v.check(m.generation() == 0, "metadata.generation", SERVER_OWNED);
    v.check(m.createdAt().isEmpty(), "metadata.createdAt", SERVER_OWNED);
    v.check(m.deletedAt().isEmpty(), "metadata.deletedAt", SERVER_OWNED);
  }
}
