package dev.quartermaster.cli.config;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import dev.quartermaster.cli.CliEnvironment;
import dev.quartermaster.cli.CliException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;

/**
 * The local user's client configuration, {@code ${XDG_CONFIG_HOME:-~/.config}/quartermaster/config.yaml},
 * written by {@code qm server} (and {@code qm up}) so that plain {@code qm get} finds them.
 *
 * <p>Unknown fields are ignored, so an older {@code qm} can read a file a newer one wrote.
 *
 * @param server the server's base URL
 * @param tokenFile the absolute path of the file holding the bearer token
 * @param caFile the absolute path of the CA certificate to trust, for an {@code https} server
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record UserConfig(Optional<String> server, Optional<String> tokenFile, Optional<String> caFile) {
  private static final YAMLMapper YAML = YAMLMapper.builder(
          YAMLFactory.builder().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER).build())
      .addModule(new Jdk8Module())
      .defaultPropertyInclusion(JsonInclude.Value.construct(JsonInclude.Include.NON_ABSENT, JsonInclude.Include.NON_ABSENT))
      .build();

  public UserConfig {
    server = server == null ? Optional.empty() : server.filter(s -> !s.isBlank());
    tokenFile = tokenFile == null ? Optional.empty() : tokenFile.filter(s -> !s.isBlank());
    caFile = caFile == null ? Optional.empty() : caFile.filter(s -> !s.isBlank());
  }

  public UserConfig(Optional<String> server, Optional<String> tokenFile) {
    this(server, tokenFile, Optional.empty());
  }

  public static Path location(CliEnvironment env) {
    var base = env.variable("XDG_CONFIG_HOME").map(env::resolve).orElse(env.home().resolve(".config"));
    return base.resolve("quartermaster").resolve("config.yaml");
  }

  /** The file's content; empty when there is no file. A file that does not parse is an error, not a silent default. */
  public static Optional<UserConfig> read(Path file) {
    try {
      var text = Files.readString(file);
      return text.isBlank() ? Optional.of(new UserConfig(Optional.empty(), Optional.empty(), Optional.empty()))
          : Optional.of(YAML.readValue(text, UserConfig.class));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (JacksonException e) {
      throw new CliException("config file " + file + " is malformed: " + e.getOriginalMessage()
          + " (fix or delete it)");
    } catch (IOException e) {
      throw new CliException("cannot read config file " + file + ": " + e.getMessage());
    }
  }

  /** Writes the file atomically (temp file, then rename), so a reader never sees half of it. */
  public void write(Path file) {
    try {
      Files.createDirectories(file.getParent());
      var temp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(temp, "# Written by qm server; read by the qm client when no --server/--token-file is given.\n"
          + YAML.writeValueAsString(this));
      Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write config file " + file + ": " + e.getMessage(), e);
    }
  }
}
