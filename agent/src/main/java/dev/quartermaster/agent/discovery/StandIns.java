package dev.quartermaster.agent.discovery;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

/**
 * Picks the real character devices a simulated root uses in place of NVIDIA's nodes.
 *
 * <p>A stand-in must be: registered on this host (so that an open reaches a driver); harmless to
 * open read-only and to close (no state left behind, no capability needed at open, not a latency or
 * security knob); and <em>not</em> in runc's default device allowlist (null, zero, full, random,
 * urandom, tty, console, ptmx, pts, net/tun), so that a container can open it only when its spec
 * lists it: exactly the property NVIDIA's nodes have. Misc devices (major 10) fit, in this order of
 * preference: fuse (229), autofs (235), loop-control (237), btrfs-control (234), userfaultfd (257),
 * vsock (258), vga_arbiter (256), kvm (232), hw_random (183). Each is looked up in {@code
 * /proc/misc}, so only those the kernel has are used.
 *
 * <p>Deliberately not used: mem (1:1) and port (1:4) need CAP_SYS_RAWIO, kmsg (1:11) needs
 * CAP_SYSLOG when dmesg_restrict is set (containers do not have either: an open would fail for a
 * reason other than the device cgroup), cpu_dma_latency (10:259) changes the CPU's latency target
 * while open, and tun (10:200) is in runc's allowlist.
 */
public final class StandIns {
  public static final long MISC_MAJOR = 10;

  /** Misc-device names from /proc/misc and their minors, in order of preference. */
  public static final List<String> PREFERRED =
      List.of(
          "fuse",
          "autofs",
          "loop-control",
          "btrfs-control",
          "userfaultfd",
          "vsock",
          "vga_arbiter",
          "kvm",
          "hw_random");

  private StandIns() {}

  /**
   * The usable stand-ins registered on this host, most preferred first (empty if none or
   * unreadable).
   */
  public static List<DeviceNumber> available() {
    return fromProcMisc(read(Path.of("/proc/misc")));
  }

  /** The stand-ins among {@code procMisc}'s entries ({@code "<minor> <name>"} lines). */
  public static List<DeviceNumber> fromProcMisc(String procMisc) {
    var byName = new java.util.HashMap<String, Long>();
    for (var line : procMisc.split("\n")) {
      var parts = line.strip().split("\\s+");
      if (parts.length == 2) {
        try {
          byName.put(parts[1], Long.parseLong(parts[0]));
        } catch (NumberFormatException e) {
          // not a misc line
        }
      }
    }
    var out = new ArrayList<DeviceNumber>();
    var seen = new HashSet<Long>();
    for (var name : PREFERRED) {
      var minor = byName.get(name);
      if (minor != null && seen.add(minor)) {
        out.add(new DeviceNumber(MISC_MAJOR, minor));
      }
    }
    return out;
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }
}
