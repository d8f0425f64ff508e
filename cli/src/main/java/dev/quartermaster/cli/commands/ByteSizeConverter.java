package dev.quartermaster.cli.commands;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A size such as {@code 10Gi}, {@code 256MiB}, {@code 1G} or plain bytes: binary (Ki..Ti, also
 * written KiB..TiB) and decimal (k..T, also kB..TB) suffixes, and {@code B}.
 */
public final class ByteSizeConverter implements ITypeConverter<Long> {
  @Override
  public Long convert(String value) {
    return parse(value);
  }

  public static long parse(String value) {
    var text = value.trim();
    int end = 0;
    while (end < text.length() && Character.isDigit(text.charAt(end))) {
      end++;
    }
    if (end == 0) {
      throw new TypeConversionException(
          "'" + value + "' is not a size, e.g. 10Gi, 512Mi or 1048576");
    }
    long number;
    try {
      number = Long.parseLong(text.substring(0, end));
    } catch (NumberFormatException e) {
      throw new TypeConversionException("'" + value + "' is too large");
    }
    long unit =
        switch (text.substring(end)) {
          case "", "B" -> 1L;
          case "Ki", "KiB" -> 1L << 10;
          case "Mi", "MiB" -> 1L << 20;
          case "Gi", "GiB" -> 1L << 30;
          case "Ti", "TiB" -> 1L << 40;
          case "k", "K", "kB", "KB" -> 1_000L;
          case "M", "MB" -> 1_000_000L;
          case "G", "GB" -> 1_000_000_000L;
          case "T", "TB" -> 1_000_000_000_000L;
          default ->
              throw new TypeConversionException(
                  "'"
                      + value
                      + "': unknown unit (use Ki, Mi, Gi, Ti (or KiB..TiB), k, M, G, T (or kB..TB) or B)");
        };
    try {
      return Math.multiplyExact(number, unit);
    } catch (ArithmeticException e) {
      throw new TypeConversionException("'" + value + "' is too large");
    }
  }
}
