package dev.quartermaster.cli.commands;

import dev.quartermaster.cli.VersionInfo;
import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code qm completion bash|zsh}: the shell completion script for every command and flag, made from
 * the command tree itself so it never falls behind. zsh runs the bash script through bashcompinit.
 */
@Command(
    name = "completion",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.class,
    description =
        "Print a shell completion script: source <(qm completion bash), or for zsh: "
            + "autoload -U +X bashcompinit && bashcompinit && source <(qm completion zsh)")
public final class CompletionCommand implements Callable<Integer> {
  public enum Shell {
    bash,
    zsh
  }

  @Spec private CommandSpec spec;

  @Parameters(index = "0", paramLabel = "SHELL", description = "bash or zsh")
  private Shell shell;

  @Override
  public Integer call() {
    var root = spec.commandLine().getParent();
    var script = AutoComplete.bash("qm", root);
    var out = spec.commandLine().getOut();
    if (shell == Shell.zsh) {
      out.println("# qm completion for zsh (through bashcompinit)");
      out.println("autoload -U +X compinit && compinit");
      out.println("autoload -U +X bashcompinit && bashcompinit");
    }
    out.print(script);
    out.flush();
    return 0;
  }
}
