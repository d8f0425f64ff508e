package dev.quartermaster.api.queue;

import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;

/**
 * The admissions of one cohort (named as the cohort): which workloads are admitted, through which
 * queue, using what. One object per cohort, so one write admits many workloads at once and the
 * store judges the cohort's quota (Q1, {@link CohortQuota}) inside that write's transaction: two
 * admitters, or two servers, cannot both spend the same unused quota.
 */
public record QuotaLedger(ObjectMeta metadata, QuotaLedgerSpec spec, QuotaLedgerStatus status)
    implements ApiObject {
  public QuotaLedger {
    metadata = metadata == null ? ObjectMeta.named("") : metadata;
    spec = spec == null ? QuotaLedgerSpec.EMPTY : spec;
    status = status == null ? QuotaLedgerStatus.EMPTY : status;
  }

  @Override
  public QuotaLedger withMetadata(ObjectMeta m) {
    return new QuotaLedger(m, spec, status);
  }

  @Override
  public QuotaLedger withStatusOf(ApiObject other) {
    return new QuotaLedger(metadata, spec, ((QuotaLedger) other).status);
  }

  public QuotaLedger withSpec(QuotaLedgerSpec s) {
    return new QuotaLedger(metadata, s, status);
  }

  @Override
  public Kind<QuotaLedger> kind() {
    return Kinds.QUOTA_LEDGER;
  }
}
