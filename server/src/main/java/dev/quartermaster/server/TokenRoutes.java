package dev.quartermaster.server;

import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.server.auth.NodeTokens;
import dev.quartermaster.server.auth.Principal;
import java.io.IOException;
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
      throw new ApiException(Reason.Forbidden, who.name() + " may not manage node tokens: only an admin does");
    }
    var store = tokens.orElseThrow(() -> new ApiException(Reason.NotFound,
        "this server keeps no node tokens (it serves a store given to it in process)"));
    if (id.isEmpty()) {
      return switch (method) {
        case "GET" -> Reply.json(200, Map.of("items", store.list()));
        case "POST" -> {
          var issued = store.create(request(body).node(), env.now());
          yield Reply.json(201, Map.of("id", issued.info().id(), "node", issued.info().node(),
              "created", issued.info().created().toString(), "token", issued.token()));
        }
        default -> throw new ApiException(Reason.MethodNotAllowed, method + " is not allowed on /api/v1/tokens; use GET or POST");
      };
    }
    if (!method.equals("DELETE")) {
      throw new ApiException(Reason.MethodNotAllowed, method + " is not allowed on /api/v1/tokens/ID; use DELETE");
    }
    return store.revoke(id.get()).map(info -> Reply.json(200, info))
        .orElseThrow(() -> new ApiException(Reason.NotFound, "token " + id.get() + " not found"));
  }

  private static TokenRequest request(byte[] body) {
    TokenRequest r;
    try {
      r = ObjectCodec.json().readValue(body, TokenRequest.class);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw ApiException.badRequest("expected {\"node\": NAME}: " + e.getOriginalMessage(), List.of());
    } catch (IOException e) {
      throw ApiException.badRequest("expected {\"node\": NAME}: " + e.getMessage(), List.of());
    }
    if (r == null || r.node() == null) {
      throw ApiException.badRequest("expected {\"node\": NAME}: node is missing", List.of());
    }
    return r;
  }
}
