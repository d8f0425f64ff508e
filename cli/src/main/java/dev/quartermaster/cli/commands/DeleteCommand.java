package dev.quartermaster.cli.commands;

import dev.quartermaster.api.client.DeleteResult;
import dev.quartermaster.cli.CliEnvironment;
import dev.quartermaster.cli.VersionInfo;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code qm delete KIND NAME}: deletes at once, or marks for deletion and says which finalizers it waits for. */
@Command(name = "delete", mixinStandardHelpOptions = true, versionProvider = VersionInfo.class, description = "Delete one object.")
public final class DeleteCommand implements Callable<Integer> {
  private final CliEnvironment env;

  @Spec
  private CommandSpec spec;

  @Mixin
  private ClientOptions client = new ClientOptions();

  @Parameters(index = "0", paramLabel = "KIND")
  private String kindName;

  @Parameters(index = "1", paramLabel = "NAME")
  private String name;

  public DeleteCommand(CliEnvironment env) {
    this.env = env;
  }

  @Override
  public Integer call() {
    var kind = KindNames.resolve(kindName);
    try (var connection = client.connect(env)) {
      var result = connection.api().delete(kind, name);
      var ref = kind.singular() + "/" + name;
      var out = spec.commandLine().getOut();
      switch (result) {
        case DeleteResult.Deleted<?> d -> out.println(ref + " deleted");
        case DeleteResult.Terminating<?> t -> out.println(ref + " marked for deletion (waiting for finalizers: "
            + String.join(", ", t.object().metadata().finalizers()) + ")");
      }
      out.flush();
    }
    return 0;
  }
}
