package dev.quartermaster.agent.discovery;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * This node's IMEX channels, as one look found them: {@code
 * <root>/dev/nvidia-caps-imex-channels/channel<N>}, character devices whose major is the {@code
 * nvidia-caps-imex-channels} entry of {@code <root>/proc/devices} and whose minor is N (a simulated
 * root's stand-ins instead, from {@code <root>/sim/stand-ins}). Published as devices of class
 * {@code channel} named {@code channel-<N>}.
 *
 * <p>Without that /proc/devices entry the driver offers no channels: there are none, whatever is in
 * {@code dev/}, and {@link #absentReason()} says why. A node that is there but wrong is left out
 * and named in {@link #problems()}.
 *
 * @param channels the usable channels, by id
 * @param problems every channel node seen and left out, naming its path
 * @param absentReason why there are no channels at all, when there are none for a reason
 */
public record ImexChannels(
    List<DiscoveredChannel> channels, List<String> problems, Optional<String> absentReason) {
  /** The directory under {@code dev/}. */
  public static final String DIR = "nvidia-caps-imex-channels";

  /** A device tree that does not look for channels (the in-memory simulation). */
  public static final ImexChannels NONE = new ImexChannels(List.of(), List.of(), Optional.empty());

  private static final int SHOWN_PROBLEMS = 4;
  private static final Pattern NODE = Pattern.compile("channel(0|[1-9][0-9]{0,8})");

  public ImexChannels {
    channels = List.copyOf(channels);
    problems = List.copyOf(problems);
    Objects.requireNonNull(absentReason, "absentReason");
  }

  public static ImexChannels absent(String why) {
    return new ImexChannels(List.of(), List.of(), Optional.of(why));
  }

  /**
   * {@code nvidia-caps-imex-channels/channel<id>}, relative to the device directory (and a
   * stand-in's name).
   */
  public static String fileName(long id) {
    return DIR + "/channel" + id;
  }

  /** {@code /dev/nvidia-caps-imex-channels/channel<id>}, where a container sees it. */
  public static String containerPath(long id) {
    return "/dev/" + fileName(id);
  }

  public Optional<DiscoveredChannel> channel(String name) {
    if (!name.startsWith("channel-")) {
      return Optional.empty();
    }
    int id;
    try {
      id = Integer.parseInt(name.substring("channel-".length()));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
    if (!DiscoveredChannel.nameOf(id).equals(name)) {
      return Optional.empty(); // "channel-07", "channel-+7": not a name this node publishes
    }
    // channels are sorted by id and usually dense: look where it would be first
    if (id >= 0 && id < channels.size() && channels.get(id).id() == id) {
      return Optional.of(channels.get(id));
    }
    return channels.stream().filter(c -> c.id() == id).findFirst();
  }

  /** One line for the node's DevicesReady message: the count, and what is wrong or absent. */
  public String summary() {
    var parts = new ArrayList<String>();
    parts.add(channels.size() + " IMEX channels");
    absentReason.ifPresent(why -> parts.set(0, "no IMEX channels: " + why));
    if (!problems.isEmpty()) {
      // 2,048 broken nodes must not make a condition of 2,048 lines: the first few and a count
      var shown = problems.subList(0, Math.min(problems.size(), SHOWN_PROBLEMS));
      parts.add(
          "channels left out: "
              + String.join("; ", shown)
              + (problems.size() > shown.size()
                  ? "; and " + (problems.size() - shown.size()) + " more"
                  : ""));
    }
    return String.join("; ", parts);
  }

  /** Looks under {@code root} ({@code /} on a real host) now. */
  public static ImexChannels scan(Path root) {
    var procDevices = root.resolve("proc/devices");
    ProcDevices devices;
    try {
      devices = ProcDevices.read(procDevices);
    } catch (IOException e) {
      return absent("cannot read " + procDevices + ": " + e.getMessage());
    }
    if (devices.imexChannelsMajor().isEmpty()) {
      return absent(
          procDevices
              + " lists no "
              + ProcDevices.NVIDIA_CAPS_IMEX_CHANNELS
              + " major (the NVIDIA driver offers no IMEX channels)");
    }
    var dir = root.resolve("dev").resolve(DIR);
    if (!Files.isDirectory(dir)) {
      return absent("no directory " + dir + " (no IMEX channel node was made)");
    }
    Numbering numbering;
    try {
      numbering = Numbering.load(root);
    } catch (IOException | IllegalArgumentException e) {
      return absent("cannot read the device numbering under " + root + ": " + e.getMessage());
    }
    var ids = new ArrayList<Integer>();
    try (var list = Files.list(dir)) {
      for (var entry : (Iterable<Path>) list::iterator) {
        var m = NODE.matcher(entry.getFileName().toString());
        if (m.matches()) {
          ids.add(Integer.parseInt(m.group(1)));
        }
      }
    } catch (IOException e) {
      return absent("cannot list " + dir + ": " + e.getMessage());
    }
    ids.sort(Comparator.naturalOrder());
    var channels = new ArrayList<DiscoveredChannel>();
    var problems = new ArrayList<String>();
    for (int id : ids) {
      var name = DiscoveredChannel.nameOf(id);
      switch (numbering.channel(id)) {
        case Numbering.Expected.Unknown u -> problems.add(name + ": " + u.why());
        case Numbering.Expected.Known k -> {
          switch (NodeVerifier.verify(
              containerPath(id), dir.resolve("channel" + id), k.expectation())) {
            case NodeVerifier.Verdict.Ok ok ->
                channels.add(new DiscoveredChannel(name, id, ok.node()));
            case NodeVerifier.Verdict.Bad bad ->
                problems.add(name + ": " + bad.problem().message());
          }
        }
      }
    }
    if (channels.isEmpty() && problems.isEmpty()) {
      return absent("no channel<N> node in " + dir);
    }
    return new ImexChannels(channels, problems, Optional.empty());
  }
}
