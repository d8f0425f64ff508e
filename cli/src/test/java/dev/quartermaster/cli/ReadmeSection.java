package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

/**
 * One {@code ## } section of the README or of a page of {@code docs/}, read as the tests that run
 * it need it: the lines of its shell blocks, and its {@code text} blocks (what a command prints).
 */
record ReadmeSection(String text) {
  static ReadmeSection of(String heading) throws Exception {
    // The README, or the page of docs/ that the section moved to.
    var pages = new java.util.ArrayList<java.nio.file.Path>();
    pages.add(ExamplesTest.REPO.resolve("README.md"));
    try (var docs = Files.list(ExamplesTest.REPO.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    for (var page : pages) {
      var text = Files.readString(page);
      int start = text.indexOf(heading + "\n");
      if (start >= 0) {
        int end = text.indexOf("\n## ", start + 1);
        return new ReadmeSection(text.substring(start, end < 0 ? text.length() : end));
      }
    }
    assertThat(pages).as("no page has the section " + heading).isEmpty();
    throw new IllegalStateException("unreachable");
  }

  /** The lines of its {@code sh} blocks, comments cut. */
  List<String> commands() {
    var commands = new ArrayList<String>();
    for (var block : blocks("sh")) {
      for (var line : block.lines().map(String::strip).toList()) {
        if (!line.startsWith("#")) {
          commands.add(line.replaceAll("\\s+#.*$", "").strip());
        }
      }
    }
    return commands;
  }

  /** The contents of its blocks fenced as {@code language}, in order. */
  List<String> blocks(String language) {
    var blocks = new ArrayList<String>();
    boolean inBlock = false;
    StringBuilder block = null; // null inside a block of another language
    for (var line : text.lines().toList()) {
      if (line.strip().startsWith("```")) {
        if (inBlock && block != null) {
          blocks.add(block.toString());
        }
        block = !inBlock && line.strip().equals("```" + language) ? new StringBuilder() : null;
        inBlock = !inBlock;
        continue;
      }
      if (inBlock && block != null) {
        block.append(line).append('\n');
      }
    }
    return blocks;
  }
}
