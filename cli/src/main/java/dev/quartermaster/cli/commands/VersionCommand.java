package dev.quartermaster.cli.commands;

import dev.quartermaster.cli.VersionInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code qm version}: this build's version and the Java runtime it runs on. */
@Command(
    name = "version",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description = "Print the qm version and the Java version.")
public final class VersionCommand implements Runnable {
  @Spec private CommandSpec spec;

  @Override
  public void run() {
    var out = spec.commandLine().getOut();
    out.println("qm " + VersionInfo.version());
    out.println("java " + VersionInfo.javaVersion());
    out.flush();
  }
}
