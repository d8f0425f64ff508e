package dev.quartermaster.cli.edit;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.LostRace;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.cli.CliException;
import java.util.function.UnaryOperator;

/**
 * An operator's change to one object (cordon, fence, drain's mark, a group's replicas):
 * read-modify-write of the whole object, compare-and-set on its revision, so what others set
 * meanwhile (labels, an agent's or controller's status) is kept; a lost race reads again, a few
 * times.
 */
public final class ObjectEdit {
  private static final int ATTEMPTS = 10;

  private ObjectEdit() {}

  /**
   * Applies {@code edit} to {@code kind}/{@code name}; false if it changed nothing (already so).
   */
  public static <T extends ApiObject> boolean apply(
      ApiClient api, Kind<T> kind, String name, UnaryOperator<T> edit) {
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      var current =
          api.get(kind, name)
              .orElseThrow(() -> new CliException(kind.singular() + "/" + name + " not found"));
      var next = edit.apply(current);
      if (next.equals(current)) {
        return false;
      }
      try {
        api.update(next);
        return true;
      } catch (ApiException e) {
        if (!LostRace.lost(api, kind, current, e)) {
          throw e;
        }
      }
    }
    throw new CliException(kind.singular() + "/" + name + " kept changing; try again");
  }
}
