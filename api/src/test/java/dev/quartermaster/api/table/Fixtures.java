package dev.quartermaster.api.table;

import dev.quartermaster.api.meta.ObjectMeta;
import java.time.Instant;
import java.util.Map;

/** Objects with metadata as the server would have set it, at fixed times. */
final class Fixtures {
  static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

  private Fixtures() {}

  static ObjectMeta meta(String name, long ageSeconds) {
    return ObjectMeta.named(name)
        .withUid("uid-" + name)
        .withRevision(7)
        .withGeneration(1)
        .withCreatedAt(NOW.minusSeconds(ageSeconds));
  }

  static ObjectMeta meta(String name, long ageSeconds, Map<String, String> labels) {
    return meta(name, ageSeconds).withLabels(labels);
  }
}
