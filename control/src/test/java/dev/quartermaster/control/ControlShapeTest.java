package dev.quartermaster.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The shape issue 45 gave {@code control}, kept: no main file over 500 lines (a controller that
 * grows past it has taken in a concept that wants a home of its own), no constructor of more than 7
 * parameters (an options record instead), and no circle between its packages. Read from the
 * sources, which is where a reviewer reads them.
 */
class ControlShapeTest {
  private static final Path ROOT = Path.of("src/main/java/dev/quartermaster/control");
  private static final String PACKAGE = "dev.quartermaster.control";
  private static final int MOST_LINES = 500;
  private static final int MOST_PARAMETERS = 7;

  @Test
  void noMainFileIsOverFiveHundredLines() {
    var over = new TreeMap<String, Long>();
    sources()
        .forEach(
            f -> {
              long lines = text(f).lines().count();
              if (lines > MOST_LINES) {
                over.put(ROOT.relativize(f).toString(), lines);
              }
            });
    assertThat(over).as("files over " + MOST_LINES + " lines").isEmpty();
  }

  @Test
  void noConstructorTakesMoreThanSevenParameters() {
    var over = new TreeMap<String, Integer>();
    sources()
        .forEach(
            f -> {
              var type = f.getFileName().toString().replace(".java", "");
              var ctor =
                  Pattern.compile(
                      "^\\s+(?:public |protected |private )?"
                          + type
                          + "\\s*\\(([^)]*)\\)\\s*(?:throws[^{]*)?\\{",
                      Pattern.MULTILINE);
              var m = ctor.matcher(text(f));
              while (m.find()) {
                int n = parameters(m.group(1));
                if (n > MOST_PARAMETERS) {
                  over.merge(ROOT.relativize(f).toString(), n, Math::max);
                }
              }
            });
    assertThat(over).as("constructors over " + MOST_PARAMETERS + " parameters").isEmpty();
  }

  @Test
  void noCircleBetweenPackages() {
    var uses = new TreeMap<String, Set<String>>();
    var reference = Pattern.compile("dev\\.quartermaster\\.control\\.(\\w+)\\.[A-Z]");
    sources()
        .forEach(
            f -> {
              var from = packageOf(f);
              var m = reference.matcher(text(f));
              while (m.find()) {
                var to = PACKAGE + "." + m.group(1);
                if (!to.equals(from)) {
                  uses.computeIfAbsent(from, k -> new TreeSet<>()).add(to);
                }
              }
            });
    var circles = new ArrayList<String>();
    uses.forEach(
        (from, tos) ->
            tos.forEach(
                to -> {
                  if (reaches(uses, to, from)) {
                    circles.add(
                        from.substring(PACKAGE.length() + 1)
                            + " -> "
                            + to.substring(PACKAGE.length() + 1));
                  }
                }));
    assertThat(circles).as("package circles in control").isEmpty();
  }

  /** The top-level parameters of a parameter list (commas inside type arguments do not count). */
  static int parameters(String list) {
    if (list.isBlank()) {
      return 0;
    }
    int depth = 0;
    int n = 1;
    for (char c : list.toCharArray()) {
      switch (c) {
        case '<' -> depth++;
        case '>' -> depth--;
        case ',' -> n += depth == 0 ? 1 : 0;
        default -> {}
      }
    }
    return n;
  }

  private static boolean reaches(Map<String, Set<String>> uses, String start, String target) {
    var seen = new TreeSet<String>();
    var todo = new ArrayDeque<String>(List.of(start));
    while (!todo.isEmpty()) {
      var p = todo.pop();
      if (p.equals(target)) {
        return true;
      }
      if (seen.add(p)) {
        todo.addAll(uses.getOrDefault(p, Set.of()));
      }
    }
    return false;
  }

  private static String packageOf(Path f) {
    var dir = ROOT.relativize(f.getParent()).toString().replace('/', '.');
    return dir.isEmpty() ? PACKAGE : PACKAGE + "." + dir;
  }

  private static List<Path> sources() {
    try (Stream<Path> files = Files.walk(ROOT)) {
      var out = files.filter(p -> p.toString().endsWith(".java")).toList();
      assertThat(out).as("control's sources under " + ROOT.toAbsolutePath()).isNotEmpty();
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String text(Path f) {
    try {
      return Files.readString(f);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
