package dev.quartermaster.agent.host;

import dev.quartermaster.agent.devices.DeviceRoot;
import dev.quartermaster.agent.discovery.VerifiedNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The device holders of this machine, from {@code /proc/<pid>/fd}: every open file of every process
 * but this one is matched against the devices asked about, two ways — by path (the link's target is
 * the device node's host path; or the path a container is given, which is what the link reads for a
 * file opened inside a container's mount namespace, when the open file is that node: the same file,
 * or the same character device) and by character-device number (the file the link resolves to is a
 * character device with the node's {@code st_rdev}, whatever path it was opened by). Sockets, pipes
 * and anonymous inodes are skipped by their link text.
 *
 * <p>By number only on a real host ({@link #forRoot}): a simulated root's nodes are stand-ins,
 * aliases of real host devices that several GPUs may share and that host daemons may hold (lxcfs
 * keeps {@code /dev/fuse} open), so there the path alone decides.
 *
 * <p>A process whose open files cannot be read (no permission: the plugin is not root, or the
 * container lacks the host's pid namespace) is reported in {@link HolderScan#unreadable()}; one
 * that exits during the scan is gone and holds nothing. Processes whose command is one of {@code
 * ignored} (by default the NVIDIA persistence daemon and DCGM's host engine, which keep every GPU
 * open by design and serve no claim) are not holders.
 */
public final class ProcDeviceHolders implements DeviceHolders {
  /** The node's own GPU services, never a claim's process. */
  public static final Set<String> DEFAULT_IGNORED = Set.of("nvidia-persistenced", "nv-hostengine");

  private static final int S_IFMT = 0170000;
  private static final int S_IFCHR = 0020000;
  private static final int MAX_COMMAND = 120;

  private final Path proc;
  private final long self;
  private final Set<String> ignored;
  private final boolean byNumber;

  /**
   * @param proc the {@code /proc} to read (the host's: the plugin's pod needs {@code hostPID})
   * @param self this process's pid there, which is never a holder (NVML opens the GPUs in-process)
   * @param byNumber whether a character device with a node's number counts, whatever its path
   */
  public ProcDeviceHolders(Path proc, long self, Set<String> ignored, boolean byNumber) {
    this.proc = Objects.requireNonNull(proc, "proc");
    this.self = self;
    this.ignored = Set.copyOf(ignored);
    this.byNumber = byNumber;
  }

  /**
   * This machine's {@code /proc}, this process excluded, the default services ignored; matching by
   * number too when {@code root} is the host's.
   */
  public static ProcDeviceHolders forRoot(DeviceRoot root) {
    return new ProcDeviceHolders(
        Path.of("/proc"), ProcessHandle.current().pid(), DEFAULT_IGNORED, root.isHost());
  }

  /** This machine's {@code /proc}, this process excluded, the default services ignored, by path. */
  public static ProcDeviceHolders byPath() {
    return new ProcDeviceHolders(
        Path.of("/proc"), ProcessHandle.current().pid(), DEFAULT_IGNORED, false);
  }

  @Override
  public HolderScan scan(Map<String, VerifiedNode> devices) {
    if (devices.isEmpty()) {
      return HolderScan.FREE;
    }
    var byPath = new HashMap<String, String>();
    var inContainer = new HashMap<String, Candidate>();
    var byRdev = new HashMap<Long, String>();
    devices.forEach(
        (name, node) -> {
          byPath.put(node.hostPath().toString(), name);
          if (!node.path().equals(node.hostPath().toString())) {
            inContainer.put(
                node.path(),
                new Candidate(name, identityOf(node.hostPath()), characterDevice(node.hostPath())));
          }
          if (byNumber) {
            characterDevice(node.hostPath()).ifPresent(rdev -> byRdev.put(rdev, name));
          }
        });
    var holders = new ArrayList<DeviceHolder>();
    var unreadable = new ArrayList<String>();
    try (DirectoryStream<Path> pids = Files.newDirectoryStream(proc, ProcDeviceHolders::isPid)) {
      for (var dir : pids) {
        long pid = Long.parseLong(dir.getFileName().toString());
        if (pid != self) {
          scanProcess(dir, pid, byPath, inContainer, byRdev, holders, unreadable);
        }
      }
    } catch (IOException e) {
      unreadable.add(proc + ": " + e.getMessage());
    }
    return new HolderScan(holders, unreadable);
  }

  private void scanProcess(
      Path dir,
      long pid,
      Map<String, String> byPath,
      Map<String, Candidate> inContainer,
      Map<Long, String> byRdev,
      List<DeviceHolder> holders,
      List<String> unreadable) {
    var found = new ArrayList<DeviceHolder>();
    try (DirectoryStream<Path> fds = Files.newDirectoryStream(dir.resolve("fd"))) {
      for (var fd : fds) {
        String target;
        try {
          target = Files.readSymbolicLink(fd).toString();
        } catch (NoSuchFileException e) {
          continue; // closed meanwhile
        }
        if (!target.startsWith("/")) {
          continue; // socket:[…], pipe:[…], anon_inode:…
        }
        var device = byPath.get(target);
        var candidate = inContainer.get(target);
        if (device == null && candidate != null && candidate.is(fd)) {
          device = candidate.device();
        }
        if (device == null && !byRdev.isEmpty()) {
          device = characterDevice(fd).map(byRdev::get).orElse(null);
        }
        if (device != null) {
          found.add(new DeviceHolder(device, pid, "", target));
        }
      }
    } catch (NoSuchFileException e) {
      return; // exited: it holds nothing
    } catch (AccessDeniedException e) {
      unreadable.add("pid " + pid + ": permission denied");
      return;
    } catch (IOException | RuntimeException e) {
      unreadable.add("pid " + pid + ": " + e.getMessage());
      return;
    }
    if (found.isEmpty()) {
      return;
    }
    var comm = read(dir.resolve("comm")).strip();
    if (ignored.contains(comm)) {
      return;
    }
    var cmdline = read(dir.resolve("cmdline")).replace('\0', ' ').strip();
    var command = cmdline.isEmpty() ? comm : cmdline;
    if (command.length() > MAX_COMMAND) {
      command = command.substring(0, MAX_COMMAND - 3) + "...";
    }
    for (var h : found) {
      holders.add(new DeviceHolder(h.device(), pid, command, h.openedAs()));
    }
  }

  /**
   * A device asked about, as a container sees it: its path there names it only if the open file is
   * the node itself (a bind mount: the same file) or the same character device (a node made in the
   * container with its number). Any process may have a file of that name open, such as another
   * container's real {@code /dev/nvidia0} while this root is simulated.
   */
  private record Candidate(String device, Optional<Object> fileKey, Optional<Long> rdev) {
    boolean is(Path fd) {
      return (fileKey.isPresent() && fileKey.equals(identityOf(fd)))
          || (rdev.isPresent() && rdev.equals(characterDevice(fd)));
    }
  }

  /** The identity (device and inode) of the file {@code path} resolves to. */
  private static Optional<Object> identityOf(Path path) {
    try {
      return Optional.ofNullable(
          Files.readAttributes(path, java.nio.file.attribute.BasicFileAttributes.class).fileKey());
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** The {@code st_rdev} of the character device {@code path} resolves to, if it is one. */
  private static Optional<Long> characterDevice(Path path) {
    try {
      var attributes = Files.readAttributes(path, "unix:mode,rdev");
      int mode = (Integer) attributes.get("mode");
      if ((mode & S_IFMT) != S_IFCHR) {
        return Optional.empty();
      }
      return Optional.of((Long) attributes.get("rdev"));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  private static String read(Path file) {
    try {
      return new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "?";
    }
  }

  private static boolean isPid(Path entry) {
    var name = entry.getFileName().toString();
    return !name.isEmpty() && name.chars().allMatch(c -> c >= '0' && c <= '9');
  }
}
