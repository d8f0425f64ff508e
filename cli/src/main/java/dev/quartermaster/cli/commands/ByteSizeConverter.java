package dev.quartermaster.cli.commands;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** A size such as {@code 10Gi}, {@code 512Mi}, {@code 1G} or plain bytes: binary (Ki..Ti) and decimal (k..T) suffixes. */
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
      throw new TypeConversionException("'" + value + "' is not a size, e.g. 10Gi, 512Mi or 1048576");
    }
    long number;
    try {
      number = Long.parseLong(text.substring(0, end));
    } catch (NumberFormatException e) {
      throw new TypeConversionException("'" + value + "' is too large");
    }
    long unit = switch (text.substring(end)) {
      case "" -> 1L;
      case "Ki" -> 1L << 10;
      case "Mi" -> 1L << 20;
      case "Gi" -> 1L << 30;
      case "Ti" -> 1L << 40;
      case "k", "K" -> 1_000L;
      case "M" -> 1_000_000L;
      case "G" -> 1_000_000_000L;
      case "T" -> 1_000_000_000_000L;
      default -> throw new TypeConversionException("'" + value + "': unknown unit (use Ki, Mi, Gi, Ti, k, M, G or T)");
    };
    try {
      return Math.multiplyExact(number, unit);
    } catch (ArithmeticException e) {
      throw new TypeConversionException("'" + value + "' is too large");
    }
  }
}
