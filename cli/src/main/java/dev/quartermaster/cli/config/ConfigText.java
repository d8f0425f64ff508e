package dev.quartermaster.cli.config;

import dev.quartermaster.cli.CliException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The one reader of the client configuration file. It reads the block layout of YAML that the file
 * has ({@code key: value} lines nested by indentation, values plain, "double" or 'single' quoted,
 * comments), not YAML as a whole: building Jackson's YAML mapper costs a client command more than a
 * hundred milliseconds, most of what {@code qm get} spends besides starting. A field it does not
 * know is passed over with everything indented under it, so an older {@code qm} reads what a newer
 * wrote; what it cannot read (flow style other than {@code {}}, a list where text belongs, a tab
 * for indentation) is an error naming the file, the line and the rule.
 */
final class ConfigText {
  private static final String CLUSTERS = "clusters";
  private static final String CURRENT = "current";
  private static final String SERVER = "server";
  private static final String TOKEN_FILE = "tokenFile";
  private static final String CA_FILE = "caFile";

  private final Path file;
  private final List<Line> lines;
  private int next;

  private ConfigText(Path file, List<Line> lines) {
    this.file = file;
    this.lines = lines;
  }

  /** A line that is neither blank nor a comment: its number, its indentation, and the rest. */
  private record Line(int number, int indent, String content) {}

  /** One {@code key: value} line; the value is empty when the key has nothing after its colon. */
  private record Entry(Line line, String key, Optional<String> value) {}

  static ConfigFile parse(String text, Path file) {
    var reader = new ConfigText(file, new ArrayList<>());
    var raw = text.split("\n", -1); // one character: no regular expression is built
    for (int i = 0; i < raw.length; i++) {
      var line = raw[i].endsWith("\r") ? raw[i].substring(0, raw[i].length() - 1) : raw[i];
      var content = line.stripLeading();
      if (content.isEmpty() || content.startsWith("#") || (i == 0 && line.equals("---"))) {
        continue;
      }
      var parsed = new Line(i + 1, line.length() - content.length(), content.stripTrailing());
      if (line.substring(0, parsed.indent()).indexOf('\t') >= 0) {
        throw reader.malformed(parsed, "a tab in the indentation (spaces only)");
      }
      reader.lines.add(parsed);
    }
    return reader.file();
  }

  private ConfigFile file() {
    var current = new AtomicReference<Optional<String>>(Optional.empty());
    var legacy = new LinkedHashMap<String, String>();
    var clusters = new LinkedHashMap<String, UserConfig>();
    mapping(
        -1,
        entry -> {
          switch (entry.key()) {
            case CURRENT -> current.set(scalar(entry));
            case CLUSTERS ->
                mapping(entry, cluster -> clusters.put(cluster.key(), cluster(cluster)));
            case SERVER, TOKEN_FILE, CA_FILE ->
                scalar(entry).ifPresent(v -> legacy.put(entry.key(), v));
            default -> skip(entry);
          }
        });
    return new ConfigFile(
        current.get(),
        clusters,
        Optional.ofNullable(legacy.get(SERVER)),
        Optional.ofNullable(legacy.get(TOKEN_FILE)),
        Optional.ofNullable(legacy.get(CA_FILE)));
  }

  private UserConfig cluster(Entry at) {
    var fields = new LinkedHashMap<String, String>();
    mapping(
        at,
        entry -> {
          switch (entry.key()) {
            case SERVER, TOKEN_FILE, CA_FILE ->
                scalar(entry).ifPresent(v -> fields.put(entry.key(), v));
            default -> skip(entry);
          }
        });
    return new UserConfig(
        Optional.ofNullable(fields.get(SERVER)),
        Optional.ofNullable(fields.get(TOKEN_FILE)),
        Optional.ofNullable(fields.get(CA_FILE)));
  }

  /** The mapping under {@code at}: indented below it, or {@code {}} on its line. */
  private void mapping(Entry at, Consumer<Entry> each) {
    if (at.value().filter(v -> !v.equals("{}")).isPresent()) {
      throw malformed(at.line(), "'" + at.key() + "' must hold fields, indented below it");
    }
    if (at.value().isEmpty()) {
      mapping(at.line().indent(), each);
    }
  }

  /**
   * The entries indented deeper than {@code parentIndent}, all at the indentation of the first;
   * each key once.
   */
  private void mapping(int parentIndent, Consumer<Entry> each) {
    if (next >= lines.size() || lines.get(next).indent() <= parentIndent) {
      return;
    }
    int indent = lines.get(next).indent();
    var seen = new HashSet<String>();
    while (next < lines.size() && lines.get(next).indent() > parentIndent) {
      var line = lines.get(next);
      if (line.indent() != indent) {
        throw malformed(line, "indented unlike the fields beside it");
      }
      next++;
      var entry = entry(line);
      if (!seen.add(entry.key())) {
        throw malformed(line, "'" + entry.key() + "' given twice");
      }
      each.accept(entry);
    }
  }

  /** Passes over a field this reader does not know, with everything indented under it. */
  private void skip(Entry entry) {
    while (next < lines.size() && lines.get(next).indent() > entry.line().indent()) {
      next++;
    }
  }

  private Entry entry(Line line) {
    var content = line.content();
    String key;
    String rest;
    if (content.startsWith("\"") || content.startsWith("'")) {
      int end = closingQuote(content, line);
      key = unquote(content.substring(0, end + 1), line);
      rest = content.substring(end + 1);
      if (!rest.startsWith(":")) {
        throw malformed(line, "expected ':' after the key");
      }
      rest = rest.substring(1);
    } else {
      int colon = content.indexOf(": ");
      if (colon < 0 && content.endsWith(":")) {
        colon = content.length() - 1;
      }
      if (colon <= 0 || content.startsWith("- ") || content.equals("-")) {
        throw malformed(line, "expected 'key: value'");
      }
      key = content.substring(0, colon);
      rest = content.substring(colon + 1);
    }
    var value = rest.strip();
    return new Entry(
        line,
        key,
        value.isEmpty() || value.startsWith("#") ? Optional.empty() : Optional.of(value));
  }

  /** A text value: plain (up to a comment), quoted, or {@code null}/{@code ~}/nothing (absent). */
  private Optional<String> scalar(Entry entry) {
    var line = entry.line();
    if (entry.value().isEmpty()) {
      if (next < lines.size() && lines.get(next).indent() > line.indent()) {
        throw malformed(lines.get(next), "'" + entry.key() + "' must be text, not fields");
      }
      return Optional.empty();
    }
    var value = entry.value().get();
    if (value.startsWith("\"") || value.startsWith("'")) {
      int end = closingQuote(value, line);
      var after = value.substring(end + 1).strip();
      if (!after.isEmpty() && !after.startsWith("#")) {
        throw malformed(line, "text after the closing quote");
      }
      return Optional.of(unquote(value.substring(0, end + 1), line));
    }
    if ("[{&*!|>%@`".indexOf(value.charAt(0)) >= 0) {
      throw malformed(line, "'" + entry.key() + "' must be plain or quoted text");
    }
    int comment = value.indexOf(" #");
    var plain = (comment < 0 ? value : value.substring(0, comment)).strip();
    return plain.equals("~") || plain.equals("null") ? Optional.empty() : Optional.of(plain);
  }

  /** Where the quote that opens {@code s} closes ({@code ''} in single quotes is a quote). */
  private int closingQuote(String s, Line line) {
    char quote = s.charAt(0);
    for (int i = 1; i < s.length(); i++) {
      char c = s.charAt(i);
      if (quote == '"' && c == '\\') {
        i++;
      } else if (c == quote) {
        if (quote == '\'' && i + 1 < s.length() && s.charAt(i + 1) == '\'') {
          i++;
        } else {
          return i;
        }
      }
    }
    throw malformed(line, "a quote that does not close");
  }

  private String unquote(String quoted, Line line) {
    var inner = quoted.substring(1, quoted.length() - 1);
    if (quoted.charAt(0) == '\'') {
      return inner.replace("''", "'");
    }
    var out = new StringBuilder();
    for (int i = 0; i < inner.length(); i++) {
      char c = inner.charAt(i);
      if (c != '\\') {
        out.append(c);
        continue;
      }
      char e = inner.charAt(++i);
      switch (e) {
        case '"', '\\', '/' -> out.append(e);
        case 't' -> out.append('\t');
        case 'n' -> out.append('\n');
        case 'u' -> {
          try {
            out.append((char) Integer.parseInt(inner.substring(i + 1, i + 5), 16));
          } catch (NumberFormatException | IndexOutOfBoundsException ex) {
            throw malformed(line, "a \\u escape needs 4 hex digits");
          }
          i += 4;
        }
        default -> throw malformed(line, "an escape it does not know: \\" + e);
      }
    }
    return out.toString();
  }

  private CliException malformed(Line line, String rule) {
    return new CliException(
        "config file "
            + file
            + " is malformed: line "
            + line.number()
            + ": "
            + rule
            + " (fix or delete it)");
  }
}
