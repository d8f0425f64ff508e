package dev.quartermaster.api.client.http;

import java.net.URI;

/** An answer and the request's address on the server that gave it (the one errors name). */
record ServedAnswer(URI uri, HttpAnswer answer) {}
