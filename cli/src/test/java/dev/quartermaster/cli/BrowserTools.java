package dev.quartermaster.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * What the dashboard's browser test needs on this machine: Node, Debian's Chromium, and
 * playwright-core installed in {@code dashboard-e2e/} by {@code npm ci}. Looked up, never
 * installed: a test must not download browsers (that fails on these machines) or change the system.
 */
record BrowserTools(Path node, Path chromium, Path e2eDir) {
  static final String HOW_TO_INSTALL =
      "apt-get install -y chromium nodejs npm && (cd dashboard-e2e && npm ci)";

  /** The tools, or what is missing and how to get it. */
  static Result find(Path repo) {
    var e2e = repo.resolve("dashboard-e2e");
    var node = onPath("node");
    var chromium =
        Optional.ofNullable(System.getenv("CHROMIUM"))
            .map(Path::of)
            .filter(Files::isExecutable)
            .or(
                () ->
                    Stream.of("/usr/bin/chromium", "/usr/bin/chromium-browser")
                        .map(Path::of)
                        .filter(Files::isExecutable)
                        .findFirst());
    var missing = new ArrayList<String>();
    node.ifPresentOrElse(p -> {}, () -> missing.add("node (not on PATH)"));
    chromium.ifPresentOrElse(
        p -> {}, () -> missing.add("chromium (no /usr/bin/chromium; or set CHROMIUM)"));
    if (!Files.isDirectory(e2e.resolve("node_modules/playwright-core"))) {
      missing.add("playwright-core (no dashboard-e2e/node_modules/playwright-core)");
    }
    return missing.isEmpty()
        ? new Result(Optional.of(new BrowserTools(node.get(), chromium.get(), e2e)), List.of())
        : new Result(Optional.empty(), List.copyOf(missing));
  }

  record Result(Optional<BrowserTools> tools, List<String> missing) {
    String explain() {
      return "missing " + String.join(", ", missing) + "; install with: " + HOW_TO_INSTALL;
    }
  }

  private static Optional<Path> onPath(String command) {
    return Stream.of(System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator))
        .filter(dir -> !dir.isBlank())
        .map(dir -> Path.of(dir, command))
        .filter(Files::isExecutable)
        .findFirst();
  }
}
