package dev.quartermaster.server;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.DeleteResult;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.ListPage;
import dev.quartermaster.api.client.http.HttpWire;
import dev.quartermaster.api.client.http.ListDocument;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.error.ApiError;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.validation.ObjectValidator;
import dev.quartermaster.server.auth.Access;
import dev.quartermaster.server.auth.Access.Verb;
import dev.quartermaster.server.auth.AccessRule;
import dev.quartermaster.server.auth.Principal;
import dev.quartermaster.server.auth.WriteJudge;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The non-streaming object operations. Each one checks everything it can (decode, kind, name,
 * validation, access) before it calls the {@link ApiClient}, so a refused request changes nothing.
 */
final class ObjectRoutes {
  private final ApiClient api;
  private final WriteJudge judge;
  private final Supplier<Instant> now;

  ObjectRoutes(ApiClient api, AccessRule access, Supplier<Instant> now) {
    this.api = api;
    this.judge = new WriteJudge(api, access);
    this.now = now;
  }

  <T extends ApiObject> Reply get(Principal who, Kind<T> kind, String name) {
    authorize(who, Access.read(Verb.GET, kind, Optional.of(name)));
    return api.get(kind, name)
        .map(o -> Reply.object(200, o))
        .orElseThrow(() -> ErrorResponses.notFound(kind.singular() + "/" + name + " not found"));
  }

  /** The whole list, or with {@code page} one page of it. */
  <T extends ApiObject> Reply list(
      Principal who, Kind<T> kind, LabelSelector selector, Optional<ListPage> page) {
    authorize(who, Access.read(Verb.LIST, kind, Optional.empty()));
    return Reply.json(
        200,
        ListDocument.of(
            page.isPresent() ? api.list(kind, selector, page.get()) : api.list(kind, selector)));
  }

  /** {@code GET …?as=table} of a list, or with {@code page} of one page of it. */
  <T extends ApiObject> Reply table(
      Principal who, Kind<T> kind, LabelSelector selector, Optional<ListPage> page) {
    if (page.isEmpty()) {
      return table(who, kind, Optional.empty(), selector);
    }
    authorize(who, Access.read(Verb.LIST, kind, Optional.empty()));
    return Reply.text(
        200, HttpWire.JSON, api.table(kind, selector, page.get(), now.get()).toJson());
  }

  /** {@code GET …?as=table}: the kind's table of one object or of a listing, AGE measured now. */
  <T extends ApiObject> Reply table(
      Principal who, Kind<T> kind, Optional<String> name, LabelSelector selector) {
    authorize(who, Access.read(name.isPresent() ? Verb.GET : Verb.LIST, kind, name));
    return Reply.text(200, HttpWire.JSON, api.table(kind, name, selector, now.get()).toJson());
  }

  /**
   * {@code GET /api/v1/nodes/NAME?as=mig}: the node's MIG GPUs ({@link MigPicture}), for a reader
   * of the node, its slice and its allocation record.
   */
  Reply mig(Principal who, String name) {
    authorize(who, Access.read(Verb.GET, Kinds.NODE, Optional.of(name)));
    authorize(who, Access.read(Verb.GET, Kinds.DEVICE_SLICE, Optional.of(name)));
    authorize(who, Access.read(Verb.GET, Kinds.NODE_ALLOCATION, Optional.of(name)));
    var node =
        api.get(Kinds.NODE, name)
            .orElseThrow(() -> ErrorResponses.notFound("node/" + name + " not found"));
    return Reply.json(200, MigPicture.of(name, ApiClient.migOf(api, node)));
  }

  /**
   * Creates the object; with {@code dryRun}, judges it as the create would (the kind's rules,
   * access, the name not taken) and stores nothing. The store's guards across objects (quota,
   * allocation) judge only a write that is made.
   */
  <T extends ApiObject> Reply create(Principal who, Kind<T> kind, byte[] body, boolean dryRun) {
    var object = ObjectCodec.fromJson(body, kind);
    ObjectValidator.requireCreate(object);
    judge.requireWrite(
        who,
        Access.write(Verb.CREATE, kind, object.metadata().name(), Optional.of(object)),
        kind,
        object);
    NodeStatusOnCreate.require(who, object);
    if (dryRun) {
      if (api.get(kind, object.metadata().name()).isPresent()) {
        throw new ApiException(ApiError.Reason.AlreadyExists, object.ref() + " already exists");
      }
      return Reply.object(201, object);
    }
    return Reply.object(201, api.create(object));
  }

  /** Updates the object; with {@code dryRun}, judges it (and its revision) and stores nothing. */
  <T extends ApiObject> Reply update(
      Principal who, Kind<T> kind, String name, byte[] body, boolean dryRun) {
    var object = decodeNamed(kind, name, body);
    ObjectValidator.require(object);
    judge.requireWrite(
        who, Access.write(Verb.UPDATE, kind, name, Optional.of(object)), kind, object);
    if (dryRun) {
      var current =
          api.get(kind, name)
              .orElseThrow(
                  () -> ErrorResponses.notFound(kind.singular() + "/" + name + " not found"));
      long revision = object.metadata().revision();
      if (revision != 0 && revision != current.metadata().revision()) {
        throw new ApiException(
            ApiError.Reason.Conflict,
            object.ref()
                + " is at revision "
                + current.metadata().revision()
                + ", not "
                + revision
                + ": read it again");
      }
      return Reply.object(200, object);
    }
    return Reply.object(200, api.update(object));
  }

  /**
   * The status is checked (names well-formed, text without control characters, sizes bounded), the
   * spec is not: a status writer (an agent, a controller) sends the spec it read, and spec rules
   * are the spec writer's business.
   */
  <T extends ApiObject> Reply updateStatus(Principal who, Kind<T> kind, String name, byte[] body) {
    var object = decodeNamed(kind, name, body);
    ObjectValidator.requireStatus(object);
    judge.requireWrite(
        who, Access.write(Verb.UPDATE_STATUS, kind, name, Optional.of(object)), kind, object);
    return Reply.object(200, api.updateStatus(object));
  }

  <T extends ApiObject> Reply delete(Principal who, Kind<T> kind, String name) {
    judge.requireDelete(who, Access.write(Verb.DELETE, kind, name, Optional.empty()), kind, name);
    var result = api.delete(kind, name);
    var outcome =
        switch (result) {
          case DeleteResult.Deleted<T> _ -> HttpWire.DELETED;
          case DeleteResult.Terminating<T> _ -> HttpWire.TERMINATING;
        };
    return Reply.object(200, result.object()).withHeader(HttpWire.DELETE_HEADER, outcome);
  }

  void authorize(Principal who, Access request) {
    judge.require(who, request);
  }

  private static <T extends ApiObject> T decodeNamed(Kind<T> kind, String name, byte[] body) {
    var object = ObjectCodec.fromJson(body, kind);
    if (!object.metadata().name().equals(name)) {
      throw ApiException.invalid(
          object.ref(),
          List.of(
              new Violation(
                  "metadata.name",
                  "must match the name in the URL ('"
                      + name
                      + "'), got '"
                      + object.metadata().name()
                      + "'")));
    }
    return object;
  }
}
