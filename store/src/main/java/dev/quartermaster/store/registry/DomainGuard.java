package dev.quartermaster.store.registry;

import dev.quartermaster.api.domain.ComputeDomain;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.store.Txn.Compare;
import java.util.List;

/**
 * A compute domain cannot be taken from under its claims by a plain write: no write may drop {@link
 * ComputeDomain#IN_USE_FINALIZER} while the domain's status lists claims that name it (an
 * operator's {@code qm apply} of the manifest lists no finalizers, and would otherwise make the
 * next delete immediate). The controller drops it once no claim is left.
 */
final class DomainGuard implements WriteRules {

  @Override
  public List<Compare> beforeWrite(Reads reads, ApiObject current, ApiObject next) {
    if (current instanceof ComputeDomain c
        && next instanceof ComputeDomain n
        && !c.status().claims().isEmpty()
        && c.metadata().finalizers().contains(ComputeDomain.IN_USE_FINALIZER)
        && !n.metadata().finalizers().contains(ComputeDomain.IN_USE_FINALIZER)) {
      throw ApiException.invalid(
          c.ref(),
          List.of(
              new Violation(
                  "metadata.finalizers",
                  "must keep "
                      + ComputeDomain.IN_USE_FINALIZER
                      + " while claims name the domain ("
                      + String.join(", ", c.status().claims().stream().limit(10).toList())
                      + (c.status().claims().size() > 10 ? ", ..." : "")
                      + "); the controller removes it when none is left")));
    }
    return List.of();
  }
}
