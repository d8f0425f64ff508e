package dev.quartermaster.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.cli.CliException;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code qm up --channels N}: IMEX channels per simulated node, 2,048 unless told, documented in
 * the help.
 */
class UpChannelsOptionTest {

  @Test
  void defaultsToTwoThousandFortyEightAndTakesACount() {
    var cl = new CommandLine(new UpCommand(null));
    cl.parseArgs();
    assertThat((Object) cl.getCommandSpec().findOption("--channels").getValue()).isEqualTo(2048);
    var told = new CommandLine(new UpCommand(null));
    told.parseArgs("--channels", "16");
    assertThat((Object) told.getCommandSpec().findOption("--channels").getValue()).isEqualTo(16);
  }

  @Test
  void theHelpSaysWhatItIs() {
    var help = new StringWriter();
    var cl = new CommandLine(new UpCommand(null));
    cl.setOut(new PrintWriter(help, true));
    cl.execute("--help");
    assertThat(help.toString())
        .contains("--channels=N")
        .contains("/dev/nvidia-caps-imex-channels/channel0..N-1")
        .contains("class 'channel'")
        .contains("default: 2048");
  }

  @Test
  void anOutOfRangeCountIsRefusedBeforeAnythingStarts() {
    for (var bad : new String[] {"-1", "4097"}) {
      var up = new UpCommand(null);
      new CommandLine(up).parseArgs("--channels", bad);
      assertThatThrownBy(up::call)
          .isInstanceOf(CliException.class)
          .hasMessage("--channels: must be between 0 and 4096, got " + bad);
    }
  }
}
