package dev.quartermaster.cli.warm;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One command as the launcher sends it to the warm client: NUL-terminated fields ({@code printf
 * '%s\0'}, as bash writes them without a process of its own), {@code qm-warm/1}, the request
 * secret, the working directory, the number of variables and each as {@code NAME=VALUE}, the number
 * of arguments and each argument.
 *
 * @param variables the launcher's values of {@link #VARIABLES} that are set
 */
public record WarmRequest(
    String secret, Path workingDir, Map<String, String> variables, List<String> args) {
  static final String MAGIC = "qm-warm/1";

  /**
   * The environment variables a client command reads, which the launcher sends (its list in {@code
   * cli/src/main/launcher/warm.bash}; {@code WarmLauncherTest} holds the two to each other): the
   * client settings, the config file's directory, the home directory, and the locale that decides
   * the output's character set.
   */
  public static final Set<String> VARIABLES =
      Set.of(
          "QM_SERVER",
          "QM_TOKEN_FILE",
          "QM_CA_FILE",
          "QM_DEBUG",
          "XDG_CONFIG_HOME",
          "HOME",
          "LC_ALL",
          "LC_CTYPE",
          "LANG");

  /** Bounds on what one request may hold: a command line, not a file. */
  static final int MAX_BYTES = 1 << 20;

  static final int MAX_FIELDS = 10_000;

  public WarmRequest {
    variables = Map.copyOf(variables);
    args = List.copyOf(args);
  }

  /**
   * Reads one request, refusing anything else: a wrong first field, a variable not in {@link
   * #VARIABLES}, counts that do not add up, or more than {@link #MAX_BYTES} or {@link #MAX_FIELDS}.
   */
  static WarmRequest read(InputStream in) throws IOException {
    var fields = new Fields(in);
    if (!fields.next().equals(MAGIC)) {
      throw new IOException("not a qm-warm/1 request");
    }
    var secret = fields.next();
    var workingDir = Path.of(fields.next());
    if (!workingDir.isAbsolute()) {
      throw new IOException("the working directory is not absolute");
    }
    var variables = new LinkedHashMap<String, String>();
    for (int i = 0, n = fields.count(); i < n; i++) {
      var variable = fields.next();
      int equals = variable.indexOf('=');
      if (equals < 0 || !VARIABLES.contains(variable.substring(0, equals))) {
        throw new IOException("not a variable the launcher sends: " + variable);
      }
      variables.put(variable.substring(0, equals), variable.substring(equals + 1));
    }
    var args = new ArrayList<String>();
    for (int i = 0, n = fields.count(); i < n; i++) {
      args.add(fields.next());
    }
    return new WarmRequest(secret, workingDir, variables, args);
  }

  private static final class Fields {
    private final InputStream in;
    private int bytes;
    private int fields;

    Fields(InputStream in) {
      this.in = in;
    }

    String next() throws IOException {
      if (++fields > MAX_FIELDS) {
        throw new IOException("more than " + MAX_FIELDS + " fields");
      }
      var field = new ByteArrayOutputStream();
      while (true) {
        int b = in.read();
        if (b < 0) {
          throw new IOException("the request ended inside a field");
        }
        if (++bytes > MAX_BYTES) {
          throw new IOException("more than " + MAX_BYTES + " bytes");
        }
        if (b == 0) {
          return field.toString(StandardCharsets.UTF_8);
        }
        field.write(b);
      }
    }

    int count() throws IOException {
      var text = next();
      if (!text.matches("[0-9]{1,5}") || Integer.parseInt(text) > MAX_FIELDS) {
        throw new IOException("not a count: " + text);
      }
      return Integer.parseInt(text);
    }
  }
}
