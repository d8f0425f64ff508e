package dev.quartermaster.api.codec;

import java.time.Instant;
import java.time.LocalDate;

/**
 * Instants as the API writes them ({@code 2026-03-01T12:04:00.5Z}: {@link Instant#toString}'s form,
 * which is {@code DateTimeFormatter.ISO_INSTANT}'s), written and read without the general
 * formatter: every stored object has a few (created, conditions, heartbeats, starts), every store
 * write encodes them and many reads decode them, and the formatter's parse was about 2 % of the
 * control plane's CPU at 10,000 nodes. Only that one form is read here, years 1000 to 9999 with no,
 * 3, 6 or 9 digits of fraction (any count of 1 to 9 digits is taken); anything else is left to the
 * general formatter, which says what is wrong with it.
 */
final class IsoInstants {
  /** 1000-01-01T00:00:00Z and 9999-12-31T23:59:59Z: four-digit years. */
  private static final long FIRST = -30_610_224_000L;

  private static final long LAST = 253_402_300_799L;

  private static final int SECONDS_PER_DAY = 86_400;

  private IsoInstants() {}

  /** {@code at} as {@link Instant#toString} writes it. */
  static String format(Instant at) {
    long seconds = at.getEpochSecond();
    if (seconds < FIRST || seconds > LAST) {
      return at.toString();
    }
    long day = Math.floorDiv(seconds, SECONDS_PER_DAY);
    int second = (int) Math.floorMod(seconds, SECONDS_PER_DAY);
    var date = LocalDate.ofEpochDay(day);
    var out = new char[30];
    int i = 0;
    i = digits(out, i, date.getYear(), 4);
    out[i++] = '-';
    i = digits(out, i, date.getMonthValue(), 2);
    out[i++] = '-';
    i = digits(out, i, date.getDayOfMonth(), 2);
    out[i++] = 'T';
    i = digits(out, i, second / 3600, 2);
    out[i++] = ':';
    i = digits(out, i, second / 60 % 60, 2);
    out[i++] = ':';
    i = digits(out, i, second % 60, 2);
    int nano = at.getNano();
    if (nano != 0) {
      out[i++] = '.';
      if (nano % 1_000_000 == 0) {
        i = digits(out, i, nano / 1_000_000, 3);
      } else if (nano % 1_000 == 0) {
        i = digits(out, i, nano / 1_000, 6);
      } else {
        i = digits(out, i, nano, 9);
      }
    }
    out[i++] = 'Z';
    return new String(out, 0, i);
  }

  /**
   * {@code text} read as an instant if it has the one form written here ({@code
   * yyyy-MM-ddTHH:mm:ss[.f…]Z}, a valid date and time), else null: the caller then reads it with
   * the general formatter.
   */
  static Instant parseOrNull(String text) {
    int n = text.length();
    if (n < 20 || n > 30 || text.charAt(n - 1) != 'Z') {
      return null;
    }
    int year = number(text, 0, 4);
    int month = number(text, 5, 2);
    int day = number(text, 8, 2);
    int hour = number(text, 11, 2);
    int minute = number(text, 14, 2);
    int second = number(text, 17, 2);
    if (year < 1000
        || month < 1
        || month > 12
        || day < 1
        || day > 28 && day > LocalDate.of(year, month, 1).lengthOfMonth()
        || hour < 0
        || hour > 23
        || minute < 0
        || minute > 59
        || second < 0
        || second > 59
        || text.charAt(4) != '-'
        || text.charAt(7) != '-'
        || text.charAt(10) != 'T'
        || text.charAt(13) != ':'
        || text.charAt(16) != ':') {
      return null;
    }
    int nano = 0;
    if (n > 20) {
      int fraction = n - 21; // digits between '.' and 'Z'
      if (text.charAt(19) != '.' || fraction < 1 || fraction > 9) {
        return null;
      }
      nano = number(text, 20, fraction);
      if (nano < 0) {
        return null;
      }
      for (int k = fraction; k < 9; k++) {
        nano *= 10;
      }
    }
    long days = LocalDate.of(year, month, day).toEpochDay();
    return Instant.ofEpochSecond(
        days * SECONDS_PER_DAY + hour * 3600L + minute * 60L + second, nano);
  }

  /** The {@code count} decimal digits at {@code from}, or -1 if any is not one. */
  private static int number(String text, int from, int count) {
    int value = 0;
    for (int k = from; k < from + count; k++) {
      char c = text.charAt(k);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }

  private static int digits(char[] out, int at, int value, int width) {
    for (int k = at + width - 1; k >= at; k--) {
      out[k] = (char) ('0' + value % 10);
      value /= 10;
    }
    return at + width;
  }
}
