package dev.quartermaster.cli.format;

import dev.quartermaster.api.format.Age;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * A point in time for a person: the exact UTC time and how long ago, {@code 2026-03-01T10:00:00Z
 * (5m ago)}.
 */
public final class Times {
  private Times() {}

  public static String at(Optional<Instant> at, Instant now) {
    return at.map(t -> at(t, now)).orElse("<none>");
  }

  public static String at(Instant at, Instant now) {
    return at.truncatedTo(ChronoUnit.SECONDS) + " (" + Age.since(Optional.of(at), now) + " ago)";
  }
}
