package dev.quartermaster.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A Prometheus text scrape, read just enough to sum the samples of a metric whose labels match. */
record Scrape(String text, List<Sample> samples) {
  record Sample(String name, Map<String, String> labels, double value) {}

  static Scrape parse(String text) {
    var samples = new ArrayList<Sample>();
    for (var line : text.lines().toList()) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int space = line.lastIndexOf(' ');
      var series = line.substring(0, space);
      var value = Double.parseDouble(line.substring(space + 1));
      int brace = series.indexOf('{');
      var labels = new LinkedHashMap<String, String>();
      if (brace >= 0) {
        // Our label values hold no commas or quotes: node, class and phase names.
        for (var pair : series.substring(brace + 1, series.length() - 1).split(",")) {
          int eq = pair.indexOf('=');
          labels.put(pair.substring(0, eq), pair.substring(eq + 2, pair.length() - 1));
        }
      }
      samples.add(new Sample(brace >= 0 ? series.substring(0, brace) : series, labels, value));
    }
    return new Scrape(text, List.copyOf(samples));
  }

  /** The sum over the samples of {@code name} that carry every label in {@code match}. */
  double value(String name, Map<String, String> match) {
    return samples.stream()
        .filter(s -> s.name().equals(name))
        .filter(s -> s.labels().entrySet().containsAll(match.entrySet()))
        .mapToDouble(Sample::value)
        .sum();
  }
}
