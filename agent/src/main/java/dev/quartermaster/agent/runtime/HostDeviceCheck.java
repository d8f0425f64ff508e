package dev.quartermaster.agent.runtime;

import dev.quartermaster.agent.cdi.CdiDeviceNode;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/** Opens each device node read-only on this host and closes it again (the exec runtime's check). */
final class HostDeviceCheck {
  private HostDeviceCheck() {}

  static DeviceCheck run(List<CdiDeviceNode> nodes) {
    var opened = new ArrayList<String>();
    for (var node : nodes) {
      var path = node.hostPath();
      try {
        FileChannel.open(Path.of(path), StandardOpenOption.READ).close();
        opened.add(path);
      } catch (IOException e) {
        var error = errorText(e);
        return new DeviceCheck.Failed(path, error, path + ": " + error, opened);
      }
    }
    return new DeviceCheck.Passed(opened);
  }

  /** The OS's words ("Operation not permitted"), as a shell would print them. */
  static String errorText(IOException e) {
    return switch (e) {
      case NoSuchFileException n -> "No such file or directory";
      case AccessDeniedException a -> "Permission denied";
      case FileSystemException f when f.getReason() != null -> f.getReason();
      default -> e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    };
  }
}
