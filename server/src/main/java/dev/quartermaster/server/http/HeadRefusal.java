package dev.quartermaster.server.http;

import dev.quartermaster.api.error.ApiError;

/**
 * A request head refused by a handler before the HTTP codec, sent on through the codec (which
 * passes what is not bytes) so that {@link RequestReader} answers it in its turn: after the answers
 * to the requests pipelined before it, never in the middle of one.
 */
record HeadRefusal(ApiError error) {}
