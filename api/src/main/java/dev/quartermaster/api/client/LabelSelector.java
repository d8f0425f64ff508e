package dev.quartermaster.api.client;

import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.validation.Names;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A conjunction of label requirements, written as in kubectl: {@code
 * gpu=a100,zone!=b,spot,!draining, tier in (x,y),env notin (dev)}.
 */
public record LabelSelector(List<Requirement> requirements) {
  public static final LabelSelector ALL = new LabelSelector(List.of());

  private static final Pattern SET =
      Pattern.compile("^\\s*(!?)\\s*([^\\s!=(),]+)\\s*(?:(notin|in)\\s*\\(([^)]*)\\))?\\s*$");
  private static final Pattern EQUALITY =
      Pattern.compile("^\\s*([^\\s!=(),]+)\\s*(==|=|!=)\\s*([^\\s!=(),]*)\\s*$");

  public LabelSelector {
    requirements = List.copyOf(requirements);
  }

  /** A selector requiring each given label to have the given value. */
  public static LabelSelector equalTo(Map<String, String> labels) {
    return new LabelSelector(
        labels.entrySet().stream()
            .map(e -> new Requirement(e.getKey(), Operator.In, Set.of(e.getValue())))
            .toList());
  }

  /** Parses a selector; an empty string selects everything. */
  public static LabelSelector parse(String text) {
    var out = new ArrayList<Requirement>();
    if (text == null || text.isBlank()) {
      return ALL;
    }
    for (var part : splitTopLevel(text)) {
      var eq = EQUALITY.matcher(part);
      var set = SET.matcher(part);
      if (eq.matches()) {
        var op = eq.group(2).equals("!=") ? Operator.NotIn : Operator.In;
        out.add(new Requirement(eq.group(1), op, Set.of(eq.group(3))));
      } else if (set.matches() && set.group(3) != null && set.group(1).isEmpty()) {
        var values =
            Set.of(set.group(4).split("\\s*,\\s*")).stream()
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .collect(Collectors.toUnmodifiableSet());
        out.add(
            new Requirement(
                set.group(2), set.group(3).equals("in") ? Operator.In : Operator.NotIn, values));
      } else if (set.matches() && set.group(3) == null) {
        out.add(
            new Requirement(
                set.group(2),
                set.group(1).isEmpty() ? Operator.Exists : Operator.DoesNotExist,
                Set.of()));
      } else {
        throw ApiException.badRequest(
            "labelSelector: cannot parse '" + part.trim() + "'",
            List.of(new Violation("labelSelector", "must be like a=b,c!=d,e,!f,g in (x,y)")));
      }
    }
    out.forEach(LabelSelector::requireValid);
    return new LabelSelector(out);
  }

  /**
   * Keys and values follow the label rules: a selector that no label could ever match is a typo,
   * and answering it with an empty list (or everything, for "!key") would hide that.
   */
  private static void requireValid(Requirement r) {
    if (!Names.isQualifiedName(r.key())) {
      throw invalid(
          "key '"
              + r.key()
              + "' must be [prefix/]name: a DNS subdomain prefix and a name of "
              + "letters, digits, '-', '_', '.' (at most 63), like a label key");
    }
    for (var value : r.values()) {
      if (!Names.isLabelValue(value)) {
        throw invalid(
            "value '"
                + value
                + "' of '"
                + r.key()
                + "' must be at most 63 letters, digits, '-', '_', "
                + "'.', starting and ending with a letter or digit, like a label value");
      }
    }
  }

  private static ApiException invalid(String rule) {
    return ApiException.badRequest(
        "labelSelector: " + rule, List.of(new Violation("labelSelector", rule)));
  }

  private static List<String> splitTopLevel(String text) {
    var parts = new ArrayList<String>();
    int depth = 0;
    int start = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
      } else if (c == ',' && depth == 0) {
        parts.add(text.substring(start, i));
        start = i + 1;
      }
    }
    parts.add(text.substring(start));
    return parts;
  }

  public boolean matches(Map<String, String> labels) {
    return requirements.stream().allMatch(r -> r.matches(labels));
  }

  public boolean isEmpty() {
    return requirements.isEmpty();
  }

  @Override
  public String toString() {
    return requirements.stream().map(Requirement::toString).collect(Collectors.joining(","));
  }

  public enum Operator {
    In,
    NotIn,
    Exists,
    DoesNotExist
  }

  public record Requirement(String key, Operator operator, Set<String> values) {
    public Requirement {
      values = Set.copyOf(values);
    }

    boolean matches(Map<String, String> labels) {
      var value = labels.get(key);
      return switch (operator) {
        case In -> value != null && values.contains(value);
        case NotIn -> value == null || !values.contains(value);
        case Exists -> value != null;
        case DoesNotExist -> value == null;
      };
    }

    @Override
    public String toString() {
      var sorted = values.stream().sorted().collect(Collectors.joining(","));
      return switch (operator) {
        case In -> values.size() == 1 ? key + "=" + sorted : key + " in (" + sorted + ")";
        case NotIn -> values.size() == 1 ? key + "!=" + sorted : key + " notin (" + sorted + ")";
        case Exists -> key;
        case DoesNotExist -> "!" + key;
      };
    }
  }
}
