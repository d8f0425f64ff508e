package dev.quartermaster.cli.apply;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.http.HttpApiClient;
import dev.quartermaster.api.client.http.HttpWire;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.cli.CliException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Optional;

/**
 * Makes one object's desired state true: create it if absent, else update it at the revision just
 * read. A manifest states what a user wants, so:
 *
 * <ul>
 *   <li>status is never taken from a manifest (controllers and agents write it);
 *   <li>finalizers already on the object are kept: they belong to the controllers that must clean
 *       up, and dropping one because a manifest did not mention it would skip that clean-up;
 *   <li>an owner already set is kept unless the manifest names one.
 * </ul>
 *
 * A write that loses a race (409) is retried on a fresh read a few times. A 409 that is not a race
 * (the object is still at the revision the write carried: the server refused the change itself, as
 * the quota guard refuses a quota below what is admitted) is shown as the server gave it.
 */
public final class Applier {
  static final int ATTEMPTS = 3;

  /** What apply did to one object; prints as kubectl does ({@code node/a created}). */
  public enum Outcome {
    CREATED,
    CONFIGURED,
    UNCHANGED;

    @Override
    public String toString() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final ApiClient api;
  private final Writes writes;

  /** How the decided create or update is sent: made, or only judged by the server. */
  public interface Writes {
    void create(ApiObject object);

    void update(ApiObject object);
  }

  public Applier(ApiClient api) {
    this.api = api;
    this.writes =
        new Writes() {
          @Override
          public void create(ApiObject object) {
            api.create(object);
          }

          @Override
          public void update(ApiObject object) {
            api.update(object);
          }
        };
  }

  /** An applier that decides as usual and sends its writes through {@code writes}. */
  public Applier(ApiClient api, Writes writes) {
    this.api = api;
    this.writes = writes;
  }

  /**
   * Writes judged by the server and stored nowhere ({@code dryRun=All}): {@code qm apply
   * --dry-run=server}.
   */
  public static Writes serverDryRun(HttpApiClient http) {
    return new Writes() {
      @Override
      public void create(ApiObject object) {
        var kind = Kinds.of(object);
        http.exchange(
            "POST",
            kind.plural() + "?" + HttpWire.PARAM_DRY_RUN + "=" + HttpWire.DRY_RUN_ALL,
            Optional.of(ObjectCodec.toJson(object)));
      }

      @Override
      public void update(ApiObject object) {
        var kind = Kinds.of(object);
        http.exchange(
            "PUT",
            kind.plural()
                + "/"
                + object.metadata().name()
                + "?"
                + HttpWire.PARAM_DRY_RUN
                + "="
                + HttpWire.DRY_RUN_ALL,
            Optional.of(ObjectCodec.toJson(object)));
      }
    };
  }

  public Outcome apply(ApiObject desired) {
    var kind = Kinds.of(desired);
    ApiException lastConflict = null;
    long triedAt = -1;
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      var current = api.get(kind, desired.metadata().name());
      if (lastConflict != null && current.map(c -> c.metadata().revision()).orElse(0L) == triedAt) {
        throw lastConflict; // nobody wrote in between: the server's answer is about our change
      }
      triedAt = current.map(c -> c.metadata().revision()).orElse(0L);
      try {
        if (current.isEmpty()) {
          writes.create(forCreate(kind, desired));
          return Outcome.CREATED;
        }
        var next = forUpdate(kind, desired, current.get());
        if (sameDesiredState(next, current.get())) {
          return Outcome.UNCHANGED;
        }
        writes.update(next);
        return Outcome.CONFIGURED;
      } catch (ApiException e) {
        if (!(e.is(Reason.Conflict) || e.is(Reason.AlreadyExists))) {
          throw e;
        }
        // someone else may have written it between our read and our write: read again and decide
        // again
        lastConflict = e;
      }
    }
    throw new CliException(
        desired.ref()
            + " kept changing while being applied; try again (the server's last answer: "
            + lastConflict.getMessage()
            + ")");
  }

  private static <T extends ApiObject> T forCreate(Kind<T> kind, ApiObject desired) {
    var m = desired.metadata();
    var meta =
        new ObjectMeta(
            m.name(),
            "",
            0,
            0,
            m.labels(),
            Optional.empty(),
            Optional.empty(),
            m.finalizers(),
            m.owner());
    return kind.cast(desired.withMetadata(meta).withStatusOf(ObjectCodec.blank(kind)));
  }

  private static <T extends ApiObject> T forUpdate(Kind<T> kind, ApiObject desired, T current) {
    var d = desired.metadata();
    var c = current.metadata();
    var finalizers = new LinkedHashSet<>(c.finalizers());
    finalizers.addAll(d.finalizers());
    var meta =
        new ObjectMeta(
            c.name(),
            c.uid(),
            c.revision(),
            c.generation(),
            d.labels(),
            c.createdAt(),
            c.deletedAt(),
            new ArrayList<>(finalizers),
            d.owner().or(c::owner));
    return kind.cast(desired.withMetadata(meta).withStatusOf(current));
  }

  /** Whether {@code next} would change nothing a user can set: labels, finalizers, owner, spec. */
  private static boolean sameDesiredState(ApiObject next, ApiObject current) {
    var n = next.metadata();
    var c = current.metadata();
    return n.labels().equals(c.labels())
        && n.finalizers().equals(c.finalizers())
        && n.owner().equals(c.owner())
        && next.spec().equals(current.spec());
  }
}
