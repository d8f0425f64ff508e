package dev.quartermaster.agent.mps;

import java.nio.file.Path;

/**
 * Where each MPS GPU's control daemon keeps its pipes and logs on this node: {@code
 * <root>/<gpu>/pipe} and {@code <root>/<gpu>/log}. The daemon is started with them, and each
 * client's CDI spec names the pipe directory and mounts it, so the two always agree.
 */
public record MpsPaths(Path root) {
  /** Where a node's agent keeps its MPS daemons unless told otherwise. */
  public static final MpsPaths DEFAULT = new MpsPaths(Path.of("/run/quartermaster/mps"));

  public MpsPaths {
    root = root.toAbsolutePath().normalize();
  }

  public Path pipe(String gpu) {
    return root.resolve(gpu).resolve("pipe");
  }

  public Path log(String gpu) {
    return root.resolve(gpu).resolve("log");
  }
}
