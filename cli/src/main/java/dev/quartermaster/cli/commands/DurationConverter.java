package dev.quartermaster.cli.commands;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** A duration such as {@code 20ms}, {@code 2s}, {@code 1m} (or ISO-8601, {@code PT2S}). */
public final class DurationConverter implements ITypeConverter<Duration> {
  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  public static Duration parse(String value) {
    var text = value.trim();
    try {
      if (text.startsWith("P") || text.startsWith("p")) {
        return Duration.parse(text);
      }
      if (text.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)));
      }
      var number = Long.parseLong(text.substring(0, Math.max(0, text.length() - 1)));
      return switch (text.charAt(text.length() - 1)) {
        case 's' -> Duration.ofSeconds(number);
        case 'm' -> Duration.ofMinutes(number);
        case 'h' -> Duration.ofHours(number);
        default ->
            throw new TypeConversionException("'" + value + "': use ms, s, m or h, e.g. 20ms");
      };
    } catch (NumberFormatException | DateTimeParseException | StringIndexOutOfBoundsException e) {
      throw new TypeConversionException("'" + value + "' is not a duration, e.g. 20ms, 2s or 1m");
    }
  }
}
