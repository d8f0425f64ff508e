package dev.quartermaster.server;

import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.server.auth.NodeTokens;
import dev.quartermaster.server.auth.Principal;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code /api/v1/tokens}: node credentials, for admins only. {@code POST} with {@code {"node":
 * NAME}} makes one (201, the token shown this once), {@code GET} lists them (no secrets), {@code
 * DELETE /api/v1/tokens/ID} revokes one.
 */
final class TokenRoutes {
  static final String PATH = "tokens";

  /** The body of a create. */
  record TokenRequest(String node) {}

  private final Optional<NodeTokens> tokens;
  private final Env env;

  TokenRoutes(Optional<NodeTokens> tokens, Env env) {
    this.tokens = tokens;
    this.env = env;
  }

  /** Serves {@code method} on {@code /api/v1/tokens[/id]}; {@code id} empty for the collection. */
  Reply serve(Principal who, String method, Optional<String> id, byte[] body) {
    if (!(who.role() instanceof Principal.Admin)) {
      throw new ApiException(
          Reason.Forbidden, who.name() + " may not manage node tokens: only an admin does");
    }
    var store =
        tokens.orElseThrow(
            () ->
                new ApiException(
                    Reason.NotFound,
                    "this server keeps no node tokens (it serves a store given to it in process)"));
    if (id.isEmpty()) {
      return switch (method) {
        case "GET" -> Reply.json(200, Map.of("items", store.list()));
        case "POST" -> {
          var issued = store.create(request(body).node(), env.now());
          yield Reply.json(
              201,
              Map.of(
                  "id",
                  issued.info().id(),
                  "node",
                  issued.info().node(),
                  "created",
                  issued.info().created().toString(),
                  "token",
                  issued.token()));
        }
        default ->
            throw new ApiException(
                Reason.MethodNotAllowed,
                method + " is not allowed on /api/v1/tokens; use GET or POST");
      };
    }
    if (!method.equals("DELETE")) {
      throw new ApiException(
          Reason.MethodNotAllowed, method + " is not allowed on /api/v1/tokens/ID; use DELETE");
    }
    return store
        .revoke(id.get())
        .map(info -> Reply.json(200, info))
        .orElseThrow(() -> new ApiException(Reason.NotFound, "token " + id.get() + " not found"));
  }

  private static TokenRequest request(byte[] body) {
    var r = ObjectCodec.fromJsonBody(body, TokenRequest.class);
    if (r.node() == null || r.node().isBlank()) {
      throw ApiException.badRequest(
          "node: required (the name of the node the token is for)",
          List.of(new Violation("node", "required (the name of the node the token is for)")));
    }
    return r;
  }
}
