package dev.quartermaster.agent.checkpoint;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.quartermaster.agent.checkpoint.CorruptCheckpointException.Problem;
import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.ledger.ClaimState;
import dev.quartermaster.agent.ledger.ClaimState.PrepareAborted;
import dev.quartermaster.agent.ledger.ClaimState.PrepareCompleted;
import dev.quartermaster.agent.ledger.ClaimState.PrepareStarted;
import dev.quartermaster.agent.ledger.LedgerState;
import dev.quartermaster.agent.names.SafeNames;
import dev.quartermaster.api.codec.PooledJson;
import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The checkpoint's bytes. Our own format, written field by field (never a serialized library type,
 * whose fields could change under us and break old checksums, as NVIDIA's did):
 *
 * <pre>
 * { "format": "quartermaster.dev/claim-ledger", "version": 1, "bootId": "…",
 *   "checksum": "sha256:&lt;hex&gt;",
 *   "payload": { "ledgerVersion": 42, "claims": [
 *       { "uid": "…", "name": "…", "state": "PrepareCompleted", "devices": ["gpu-0"],
 *         "computeDomain": "cd-1", "since": "2026-…Z", "cdiDevices": ["quartermaster.dev/gpu=…"] },
 *       { …, "state": "PrepareAborted", "expiresAt": "2026-…Z" } ] } }
 * </pre>
 *
 * <p>The checksum is SHA-256 over the canonical bytes (keys sorted, no whitespace) of everything
 * but the checksum itself, so the boot id and version are covered too, and re-indenting the file by
 * hand does not break it. Decoding checks, in order: JSON, format marker, version, checksum,
 * content; each failure is a {@link CorruptCheckpointException} naming the file and the problem.
 */
public final class CheckpointCodec {
  public static final String FORMAT = "quartermaster.dev/claim-ledger";
  public static final int VERSION = 1;

  private static final ObjectMapper JSON = PooledJson.mapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private CheckpointCodec() {}

  /**
   * The checkpoint for {@code state} on the boot {@code bootId}, continued by no journal
   * (generation 0).
   */
  public static byte[] encode(LedgerState state, String bootId) {
    return encode(state, bootId, 0);
  }

  /**
   * The checkpoint for {@code state} on the boot {@code bootId}, continued by the journal of
   * generation {@code journalGeneration} (journals of older generations are covered by it).
   */
  public static byte[] encode(LedgerState state, String bootId, long journalGeneration) {
    var claims = NODES.arrayNode();
    for (var entry : state.claims().values()) {
      claims.add(encodeEntry(entry));
    }
    var payload = NODES.objectNode();
    payload.put("ledgerVersion", state.version());
    payload.set("claims", claims);
    var top = NODES.objectNode();
    top.put("format", FORMAT);
    top.put("version", VERSION);
    top.put("bootId", bootId);
    if (journalGeneration > 0) {
      // Absent for 0, so a checkpoint without a journal is byte-for-byte what it always was.
      top.put("journalGeneration", journalGeneration);
    }
    top.set("payload", payload);
    top.put("checksum", checksum(top));
    try {
      // Indented for people who look at it; the checksum is over canonical bytes, not these.
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(top);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode checkpoint", e);
    }
  }

  /** Decodes and verifies {@code bytes} read from {@code location}. */
  public static Checkpoint decode(byte[] bytes, String location) throws CorruptCheckpointException {
    if (bytes.length == 0) {
      throw new CorruptCheckpointException(location, Problem.MALFORMED, "the file is empty");
    }
    JsonNode top;
    try {
      top = JSON.readTree(bytes);
    } catch (IOException e) {
      throw new CorruptCheckpointException(
          location, Problem.MALFORMED, "not valid JSON: " + firstLine(e), e);
    }
    if (top == null || !top.isObject()) {
      throw new CorruptCheckpointException(location, Problem.MALFORMED, "not a JSON object");
    }
    var format = top.path("format");
    if (!format.isTextual() || !format.asText().equals(FORMAT)) {
      throw new CorruptCheckpointException(
          location,
          Problem.NOT_A_LEDGER,
          "\"format\" is " + format + ", expected \"" + FORMAT + "\"");
    }
    var version = top.path("version");
    if (!version.isInt()) {
      throw new CorruptCheckpointException(
          location,
          Problem.UNSUPPORTED_VERSION,
          "\"version\" is " + version + ", expected the integer " + VERSION);
    }
    if (version.asInt() != VERSION) {
      throw new CorruptCheckpointException(
          location,
          Problem.UNSUPPORTED_VERSION,
          "format version "
              + version.asInt()
              + " is not supported by this agent (it reads version "
              + VERSION
              + "); was it written by a newer agent?");
    }
    var stored = top.path("checksum");
    if (!stored.isTextual()) {
      throw new CorruptCheckpointException(
          location, Problem.CHECKSUM_MISMATCH, "\"checksum\" is missing");
    }
    var withoutChecksum = ((ObjectNode) top).deepCopy();
    withoutChecksum.remove("checksum");
    var computed = checksum(withoutChecksum);
    if (!computed.equals(stored.asText())) {
      throw new CorruptCheckpointException(
          location,
          Problem.CHECKSUM_MISMATCH,
          "stored " + stored.asText() + ", computed " + computed + " over the content");
    }
    var bootId = top.path("bootId");
    if (!bootId.isTextual()) {
      throw new CorruptCheckpointException(
          location, Problem.INVALID_CONTENT, "\"bootId\" must be a string");
    }
    var generation = top.path("journalGeneration");
    if (!generation.isMissingNode()
        && !(generation.isIntegralNumber()
            && generation.canConvertToLong()
            && generation.asLong() >= 0)) {
      throw new CorruptCheckpointException(
          location, Problem.INVALID_CONTENT, "\"journalGeneration\" must be an integer >= 0");
    }
    try {
      return new Checkpoint(
          VERSION, bootId.asText(), decodePayload(top.path("payload")), generation.asLong(0));
    } catch (InvalidContent e) {
      throw new CorruptCheckpointException(
          location, Problem.INVALID_CONTENT, e.getMessage(), e.getCause());
    }
  }

  static ObjectNode encodeEntry(ClaimState entry) {
    var node = NODES.objectNode();
    node.put("uid", entry.claim().uid());
    node.put("name", entry.claim().name());
    node.put("state", entry.stateName());
    var devices = node.putArray("devices");
    entry.devices().forEach(devices::add);
    entry.computeDomain().ifPresent(d -> node.put("computeDomain", d));
    node.put("since", entry.since().toString());
    switch (entry) {
      case PrepareCompleted c -> {
        var cdi = node.putArray("cdiDevices");
        c.cdiDevices().forEach(cdi::add);
      }
      case PrepareAborted a -> node.put("expiresAt", a.expiresAt().toString());
      case PrepareStarted _ -> {}
    }
    return node;
  }

  private static LedgerState decodePayload(JsonNode payload) throws InvalidContent {
    if (!payload.isObject()) {
      throw new InvalidContent("\"payload\" must be an object");
    }
    var ledgerVersion = payload.path("ledgerVersion");
    if (!ledgerVersion.canConvertToLong()
        || !ledgerVersion.isIntegralNumber()
        || ledgerVersion.asLong() < 0) {
      throw new InvalidContent("payload.ledgerVersion must be an integer >= 0");
    }
    var claims = payload.path("claims");
    if (!claims.isArray()) {
      throw new InvalidContent("payload.claims must be an array");
    }
    var entries = new LinkedHashMap<String, ClaimState>();
    for (int i = 0; i < claims.size(); i++) {
      var at = "payload.claims[" + i + "]";
      var entry = decodeEntry(claims.get(i), at);
      if (entries.putIfAbsent(entry.claim().uid(), entry) != null) {
        throw new InvalidContent(at + ": claim uid " + entry.claim().uid() + " appears twice");
      }
    }
    var state = new LedgerState(entries, ledgerVersion.asLong());
    var doubleHeld = state.doubleHeld();
    if (doubleHeld.isPresent()) {
      throw new InvalidContent("payload.claims: " + doubleHeld.get());
    }
    return state;
  }

  static ClaimState decodeEntry(JsonNode node, String at) throws InvalidContent {
    if (!node.isObject()) {
      throw new InvalidContent(at + " must be an object");
    }
    ClaimRef claim;
    try {
      claim = new ClaimRef(text(node, "uid", at), text(node, "name", at));
    } catch (IllegalArgumentException e) {
      throw new InvalidContent(at + ": " + e.getMessage());
    }
    var devices = strings(node, "devices", at);
    for (var d : devices) {
      if (!SafeNames.isDeviceName(d)) {
        throw new InvalidContent(at + ".devices: device name '" + d + "' " + SafeNames.DEVICE_RULE);
      }
    }
    var domainNode = node.get("computeDomain");
    Optional<String> domain = Optional.empty();
    if (domainNode != null && !domainNode.isNull()) {
      domain = Optional.of(text(node, "computeDomain", at));
    }
    var since = instant(node, "since", at);
    var state = text(node, "state", at);
    return switch (state) {
      case "PrepareStarted" -> new PrepareStarted(claim, devices, domain, since);
      case "PrepareCompleted" ->
          new PrepareCompleted(claim, devices, domain, since, strings(node, "cdiDevices", at));
      case "PrepareAborted" ->
          new PrepareAborted(claim, devices, domain, since, instant(node, "expiresAt", at));
      default ->
          throw new InvalidContent(
              at
                  + ".state: unknown state '"
                  + state
                  + "' (known: PrepareStarted, PrepareCompleted, PrepareAborted)");
    };
  }

  private static String text(JsonNode node, String field, String at) throws InvalidContent {
    var value = node.get(field);
    if (value == null || !value.isTextual()) {
      throw new InvalidContent(at + "." + field + " must be a string");
    }
    return value.asText();
  }

  private static List<String> strings(JsonNode node, String field, String at)
      throws InvalidContent {
    var value = node.get(field);
    if (value == null || !value.isArray()) {
      throw new InvalidContent(at + "." + field + " must be an array of strings");
    }
    var out = new ArrayList<String>();
    for (var item : value) {
      if (!item.isTextual()) {
        throw new InvalidContent(at + "." + field + " must be an array of strings");
      }
      out.add(item.asText());
    }
    return out;
  }

  private static Instant instant(JsonNode node, String field, String at) throws InvalidContent {
    var text = text(node, field, at);
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      throw new InvalidContent(at + "." + field + ": '" + text + "' is not an ISO-8601 instant");
    }
  }

  /** {@code sha256:<hex>} of the canonical bytes of {@code node}. */
  static String checksum(JsonNode node) {
    try {
      var bytes = JSON.writeValueAsBytes(canonical(node));
      var digest = MessageDigest.getInstance("SHA-256").digest(bytes);
      return "sha256:" + HexFormat.of().formatHex(digest);
    } catch (JsonProcessingException | NoSuchAlgorithmException e) {
      throw new IllegalStateException("cannot compute checkpoint checksum", e);
    }
  }

  /** {@code node} with every object's keys sorted, so equal content gives equal bytes. */
  private static JsonNode canonical(JsonNode node) {
    if (node.isObject()) {
      var sorted = new TreeMap<String, JsonNode>();
      node.properties().forEach(e -> sorted.put(e.getKey(), canonical(e.getValue())));
      var out = NODES.objectNode();
      sorted.forEach(out::set);
      return out;
    }
    if (node.isArray()) {
      ArrayNode out = NODES.arrayNode();
      node.forEach(item -> out.add(canonical(item)));
      return out;
    }
    return node;
  }

  private static String firstLine(Exception e) {
    var message = String.valueOf(e.getMessage());
    var newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }

  /** A rule broken inside the payload; becomes INVALID_CONTENT with the file's name. */
  static final class InvalidContent extends Exception {
    private static final long serialVersionUID = 1L;

    InvalidContent(String message) {
      super(message);
    }
  }
}
