package dev.quartermaster.store.registry;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.queue.AdmissionTransitions;
import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.Eviction;
import dev.quartermaster.api.queue.QuotaLedger;
import dev.quartermaster.api.queue.QuotaLedgerSpec;
import dev.quartermaster.store.Txn.Compare;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The admission entry's machine in the store, whoever writes: each workload's entry in a ledger
 * write moves only as {@link AdmissionTransitions} lets it, judged on the ledger as stored against
 * the one written (the write's own compare-and-set makes the two one step, so it reads nothing
 * else). A refusal is a 409 naming the entry's field and the rule.
 */
final class AdmissionMoveGuard implements WriteRules {

  @Override
  public List<Compare> beforeCreate(Reads reads, ApiObject next) {
    if (next instanceof QuotaLedger l) {
      judge(QuotaLedgerSpec.EMPTY, l);
    }
    return List.of();
  }

  @Override
  public List<Compare> beforeWrite(Reads reads, ApiObject current, ApiObject next) {
    if (current instanceof QuotaLedger c && next instanceof QuotaLedger l) {
      judge(c.spec(), l);
    }
    return List.of();
  }

  private static void judge(QuotaLedgerSpec before, QuotaLedger next) {
    var after = next.spec();
    before
        .admitted()
        .forEach((name, was) -> judge(before, next, name, Optional.of(was), after.admitted()));
    after
        .admitted()
        .forEach(
            (name, now) -> {
              if (!before.admitted().containsKey(name)) {
                judge(before, next, name, Optional.empty(), after.admitted());
              }
            });
  }

  /** Refuses the change of {@code name}'s entry from {@code was}, if no step may make it. */
  private static void judge(
      QuotaLedgerSpec before,
      QuotaLedger next,
      String name,
      Optional<Admitted> was,
      Map<String, Admitted> after) {
    var now = Optional.ofNullable(after.get(name));
    if (was.equals(now)) {
      return;
    }
    var reason = now.flatMap(Admitted::eviction).map(Eviction::reason);
    var changes =
        AdmissionTransitions.changes(
            was,
            Optional.ofNullable(before.nominated().get(name)),
            now,
            Optional.ofNullable(next.spec().nominated().get(name)));
    for (var change : changes) {
      AdmissionTransitions.refusal(change.from(), change.to(), reason)
          .ifPresent(
              rule -> {
                throw conflict(
                    next, "spec.admitted." + name + "." + rule.field() + ": " + rule.text());
              });
    }
  }

  private static ApiException conflict(ApiObject object, String message) {
    return new ApiException(Reason.Conflict, object.ref() + ": " + message);
  }
}
