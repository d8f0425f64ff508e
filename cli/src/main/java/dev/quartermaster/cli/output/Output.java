package dev.quartermaster.cli.output;

import java.util.Locale;
import java.util.Optional;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * What {@code -o} asked for: a format, and for {@code jsonpath=TEMPLATE} its template.
 *
 * @param format the format
 * @param template the template of {@link OutputFormat#JSONPATH}, empty for the others
 */
public record Output(OutputFormat format, Optional<JsonPathTemplate> template) {
  public static final Output TABLE = new Output(OutputFormat.TABLE, Optional.empty());

  public boolean isTable() {
    return format.isTable();
  }

  /** {@code -o}'s converter: a format's name, any case, or {@code jsonpath=TEMPLATE}. */
  public static final class Converter implements ITypeConverter<Output> {
    @Override
    public Output convert(String value) {
      if (value.toLowerCase(Locale.ROOT).startsWith("jsonpath=")) {
        try {
          return new Output(
              OutputFormat.JSONPATH,
              Optional.of(JsonPathTemplate.parse(value.substring("jsonpath=".length()))));
        } catch (dev.quartermaster.cli.CliException e) {
          throw new TypeConversionException(e.getMessage());
        }
      }
      for (var f : OutputFormat.values()) {
        if (f != OutputFormat.JSONPATH && f.name().equalsIgnoreCase(value)) {
          return new Output(f, Optional.empty());
        }
      }
      throw new TypeConversionException(
          "'"
              + value
              + "' is not one of table, wide, yaml, json, name, jsonpath=TEMPLATE"
              + " (as jsonpath='{.items[*].metadata.name}')");
    }
  }
}
