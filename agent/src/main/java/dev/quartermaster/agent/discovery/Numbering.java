package dev.quartermaster.agent.discovery;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The character-device numbers the NVIDIA nodes must have under one device root.
 *
 * <p>On a real host ({@link DriverNumbering}) they follow from {@code /proc/devices} and
 * nvidia-modprobe's fixed minors. A simulated root cannot have those numbers (no NVIDIA driver
 * answers an open of 195:255), so it uses real, harmless stand-in devices and lists them in {@code
 * <root>/sim/stand-ins} ({@link StandInNumbering}). {@link #load} picks the one that applies and
 * reads the files now: never a copy from start-up.
 */
public sealed interface Numbering permits DriverNumbering, StandInNumbering {

  /** Where simulated roots list their stand-ins, relative to the root. */
  String STAND_INS = "sim/stand-ins";

  /** What a node must be, or why that is not known (no driver registered: nothing can be right). */
  sealed interface Expected {
    record Known(NodeExpectation expectation) implements Expected {}

    record Unknown(String why) implements Expected {}
  }

  /** What {@code node} must be. */
  Expected control(ControlNode node);

  /** What {@code /dev/nvidia<minor>} must be. */
  Expected gpu(long minor);

  /** What {@code /dev/nvidia-caps-imex-channels/channel<id>} must be. */
  Expected channel(long id);

  /** The file these numbers come from, for messages. */
  Path source();

  /** The numbering of {@code root} ({@code /} on a real host), read now. */
  static Numbering load(Path root) throws IOException {
    var standIns = root.resolve(STAND_INS);
    if (Files.exists(standIns)) {
      return StandInNumbering.read(standIns);
    }
    var procDevices = root.resolve("proc/devices");
    return new DriverNumbering(ProcDevices.read(procDevices), procDevices);
  }
}
