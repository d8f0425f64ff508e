package dev.quartermaster.agent.mps;

import dev.quartermaster.agent.domaind.DaemonAnswer;
import dev.quartermaster.agent.effects.HelperProcesses;
import dev.quartermaster.agent.effects.OsHelperProcesses;
import dev.quartermaster.api.device.mps.MpsVariables;
import dev.quartermaster.api.node.DomainDaemon;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The MPS control daemons of a node's GPUs as real processes, one per GPU name, kept like a compute
 * domain's helpers ({@link OsHelperProcesses}: a pid file with the exact start, so a restarted
 * agent adopts a live daemon and never another program). Each is started on its GPU alone ({@code
 * CUDA_VISIBLE_DEVICES} by index in PCI order, NVML's) with its pipe and log directories ({@link
 * MpsPaths}), made before it starts. {@link #REAL_COMMAND} on a node that has it; elsewhere (a
 * laptop's {@code qm up}) a stand-in that only runs, as the compute domain helper's does.
 */
public final class OsMpsDaemons implements HelperProcesses {
  public static final List<String> REAL_COMMAND = List.of("nvidia-cuda-mps-control", "-f");
  public static final List<String> STAND_IN = List.of("sleep", "infinity");
  private static final Pattern GPU = Pattern.compile("gpu-([0-9]+)");

  private final MpsPaths paths;
  private final OsHelperProcesses daemons;

  public OsMpsDaemons(MpsPaths paths, List<String> command) throws IOException {
    this.paths = paths;
    this.daemons =
        new OsHelperProcesses(
            paths.root().resolve("daemons"), command, "MPS daemon of", this::environment);
  }

  /** The real daemon where {@code nvidia-cuda-mps-control} is on the PATH, else the stand-in. */
  public static List<String> commandHere() {
    return dev.quartermaster.agent.runtime.OwnSession.resolve(
                REAL_COMMAND.getFirst(), System.getenv().getOrDefault("PATH", ""))
            .isPresent()
        ? REAL_COMMAND
        : STAND_IN;
  }

  private Map<String, String> environment(String gpu) {
    var m = GPU.matcher(gpu);
    return Map.of(
        "CUDA_DEVICE_ORDER",
        "PCI_BUS_ID",
        "CUDA_VISIBLE_DEVICES",
        m.matches() ? m.group(1) : gpu,
        MpsVariables.PIPE_DIRECTORY,
        paths.pipe(gpu).toString(),
        MpsVariables.LOG_DIRECTORY,
        paths.log(gpu).toString());
  }

  @Override
  public Set<String> running() {
    return daemons.running();
  }

  @Override
  public void start(String gpu) throws IOException {
    Files.createDirectories(paths.pipe(gpu));
    Files.createDirectories(paths.log(gpu));
    daemons.start(gpu);
  }

  @Override
  public void stop(String gpu) throws IOException {
    daemons.stop(gpu);
  }

  @Override
  public List<DomainDaemon> daemons(Set<String> wanted, Instant now) {
    return daemons.daemons(wanted, now);
  }

  @Override
  public DaemonAnswer readiness(String gpu) {
    return daemons.readiness(gpu);
  }
}
