package dev.quartermaster.agent.discovery;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The {@code Character devices:} section of {@code /proc/devices}: driver name to major.
 *
 * <p>NVIDIA's GPU driver registers major 195 as {@code nvidia} (drivers 550.40 and later) or {@code
 * nvidia-frontend} (older); {@code nvidia-uvm}, {@code nvidia-caps} and friends get a dynamic
 * major, so they must be read from here, never assumed. Like nvidia-modprobe, parsing stops at the
 * first blank line after the section header (the block devices follow).
 */
public record ProcDevices(Map<String, Long> charMajors) {
  public static final String NVIDIA = "nvidia";
  public static final String NVIDIA_FRONTEND = "nvidia-frontend";
  public static final String NVIDIA_UVM = "nvidia-uvm";
  public static final String NVIDIA_CAPS = "nvidia-caps";

  /**
   * The IMEX channels' (dynamic) major: {@code /dev/nvidia-caps-imex-channels/channel<N>} is {@code
   * <major>:N}.
   */
  public static final String NVIDIA_CAPS_IMEX_CHANNELS = "nvidia-caps-imex-channels";

  public ProcDevices {
    charMajors = Map.copyOf(charMajors);
  }

  /** Parses the file's text; lines that are not {@code "<major> <name>"} are skipped. */
  public static ProcDevices parse(String text) {
    var majors = new LinkedHashMap<String, Long>();
    boolean inChar = false;
    for (var raw : text.split("\n", -1)) {
      var line = raw.strip();
      if (!inChar) {
        inChar = line.equals("Character devices:");
        continue;
      }
      if (line.isEmpty()) {
        break;
      }
      var space = line.indexOf(' ');
      if (space <= 0) {
        continue;
      }
      try {
        long major = Long.parseLong(line.substring(0, space));
        // The first registration of a name wins, as in nvidia-modprobe's scan.
        majors.putIfAbsent(line.substring(space + 1).strip(), major);
      } catch (NumberFormatException e) {
        // not a "<major> <name>" line; the kernel never writes one, a test sample might
      }
    }
    return new ProcDevices(majors);
  }

  /** Reads {@code file}; a missing file means no driver registered anything: an empty result. */
  public static ProcDevices read(Path file) throws IOException {
    try {
      return parse(Files.readString(file, StandardCharsets.UTF_8));
    } catch (NoSuchFileException e) {
      return new ProcDevices(Map.of());
    }
  }

  public OptionalLong major(String name) {
    var major = charMajors.get(name);
    return major == null ? OptionalLong.empty() : OptionalLong.of(major);
  }

  /** The GPU driver's major: {@code nvidia}, else {@code nvidia-frontend} (pre-550.40 drivers). */
  public OptionalLong nvidiaMajor() {
    var major = major(NVIDIA);
    return major.isPresent() ? major : major(NVIDIA_FRONTEND);
  }

  /** The unified-memory driver's (dynamic) major, when the nvidia-uvm module is loaded. */
  public OptionalLong uvmMajor() {
    return major(NVIDIA_UVM);
  }

  /** The IMEX channels' (dynamic) major, when the driver offers IMEX channels. */
  public OptionalLong imexChannelsMajor() {
    return major(NVIDIA_CAPS_IMEX_CHANNELS);
  }
}
