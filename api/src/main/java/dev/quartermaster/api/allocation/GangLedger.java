package dev.quartermaster.api.allocation;

import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;

/**
 * The cluster's gang reservations: one object, named {@value #NAME}, holding every gang decision
 * too large for one store transaction between its commit and the writes that carry it out (see the
 * allocator's {@code package-info}, "Gangs larger than one transaction"). The store counts each
 * reservation's devices as held, as it counts a node allocation record's entries: no record entry
 * or claim allocation may take one of them for another claim.
 *
 * <p>One object, not one per gang, so that every write that could take a reserved device compares
 * one key: a reservation written after such a write read the ledger makes that write fail its
 * compare and be judged again, whatever the number of gangs.
 */
public record GangLedger(ObjectMeta metadata, GangLedgerSpec spec, GangLedgerStatus status)
    implements ApiObject {
  /** The one ledger's name. */
  public static final String NAME = "gangs";

  public GangLedger {
    metadata = metadata == null ? ObjectMeta.named("") : metadata;
    spec = spec == null ? GangLedgerSpec.EMPTY : spec;
    status = status == null ? GangLedgerStatus.EMPTY : status;
  }

  /** A new ledger holding {@code spec}. */
  public static GangLedger of(GangLedgerSpec spec) {
    return new GangLedger(ObjectMeta.named(NAME), spec, GangLedgerStatus.EMPTY);
  }

  @Override
  public GangLedger withMetadata(ObjectMeta m) {
    return new GangLedger(m, spec, status);
  }

  @Override
  public GangLedger withStatusOf(ApiObject other) {
    return new GangLedger(metadata, spec, ((GangLedger) other).status);
  }

  public GangLedger withSpec(GangLedgerSpec s) {
    return new GangLedger(metadata, s, status);
  }

  @Override
  public Kind<GangLedger> kind() {
    return Kinds.GANG_LEDGER;
  }
}
