package dev.quartermaster.agent.ledger;

import dev.quartermaster.agent.names.SafeNames;
import dev.quartermaster.api.validation.Names;
import java.util.Objects;

/**
 * Which claim: its uid (the ledger's key, unique forever) and its name (for people: every message
 * that names a holder gives both).
 */
public record ClaimRef(String uid, String name) {
  public ClaimRef {
    SafeNames.requireClaimUid(uid);
    Objects.requireNonNull(name, "name");
    if (!Names.isDnsLabel(name)) {
      throw new IllegalArgumentException("claim name '" + name + "': " + Names.DNS_LABEL_RULE);
    }
  }

  @Override
  public String toString() {
    return uid + " (" + name + ")";
  }
}
