package dev.quartermaster.agent.discovery;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A simulated root's numbering, from {@code <root>/sim/stand-ins}: one line per node,
 *
 * <pre>
 * # name            kind  number
 * nvidiactl         c     10:229
 * nvidia-uvm        c     10:235
 * nvidia0           f     10:234     (f: a regular file stands in; mknod was not permitted)
 * </pre>
 *
 * Lines starting with {@code #} and blank lines are skipped; a malformed line is an error naming
 * the file and the line, never silently skipped.
 */
public record StandInNumbering(Map<String, NodeExpectation> byFileName, Path source)
    implements Numbering {

  public StandInNumbering {
    byFileName = Map.copyOf(byFileName);
  }

  public static StandInNumbering read(Path file) throws IOException {
    return parse(Files.readString(file, StandardCharsets.UTF_8), file);
  }

  public static StandInNumbering parse(String text, Path source) {
    var out = new LinkedHashMap<String, NodeExpectation>();
    int lineNo = 0;
    for (var raw : text.split("\n", -1)) {
      lineNo++;
      var line = raw.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      var parts = line.split("\\s+");
      if (parts.length != 3 || !(parts[1].equals("c") || parts[1].equals("f"))) {
        throw new IllegalArgumentException(
            source
                + " line "
                + lineNo
                + ": expected '<name> c|f <major>:<minor>', got '"
                + line
                + "'");
      }
      try {
        out.put(parts[0], new NodeExpectation(DeviceNumber.parse(parts[2]), parts[1].equals("f")));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(source + " line " + lineNo + ": " + e.getMessage(), e);
      }
    }
    return new StandInNumbering(out, source);
  }

  /** The file's text for {@code entries} (name to expectation), in their order. */
  public static String render(Map<String, NodeExpectation> entries) {
    var sb =
        new StringBuilder(
            "# Stand-in device numbers of this simulated root (see dev.quartermaster.agent.discovery).\n");
    entries.forEach(
        (name, e) ->
            sb.append(name)
                .append(' ')
                .append(e.regularFileAccepted() ? 'f' : 'c')
                .append(' ')
                .append(e.number())
                .append('\n'));
    return sb.toString();
  }

  @Override
  public Expected control(ControlNode node) {
    return lookup(node.fileName());
  }

  @Override
  public Expected gpu(long minor) {
    return lookup("nvidia" + minor);
  }

  @Override
  public Expected channel(long id) {
    return lookup(ImexChannels.fileName(id));
  }

  private Expected lookup(String name) {
    var e = byFileName.get(name);
    return e == null
        ? new Expected.Unknown(source + " has no stand-in for " + name)
        : new Expected.Known(e);
  }
}
