package dev.quartermaster.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.cli.Main;
import dev.quartermaster.cli.TestEnvironments;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.TypeConversionException;

class CsiCommandTest {
  @TempDir Path dir;

  @Test
  void sizesAndDurations() {
    assertThat(ByteSizeConverter.parse("10Gi")).isEqualTo(10L << 30);
    assertThat(ByteSizeConverter.parse("512Mi")).isEqualTo(512L << 20);
    assertThat(ByteSizeConverter.parse("1G")).isEqualTo(1_000_000_000L);
    assertThat(ByteSizeConverter.parse("4096")).isEqualTo(4096L);
    assertThatThrownBy(() -> ByteSizeConverter.parse("ten"))
        .isInstanceOf(TypeConversionException.class);
    assertThatThrownBy(() -> ByteSizeConverter.parse("1Qi"))
        .isInstanceOf(TypeConversionException.class);
    assertThat(DurationConverter.parse("20ms")).isEqualTo(Duration.ofMillis(20));
    assertThat(DurationConverter.parse("2s")).isEqualTo(Duration.ofSeconds(2));
    assertThat(DurationConverter.parse("PT1M")).isEqualTo(Duration.ofMinutes(1));
    assertThatThrownBy(() -> DurationConverter.parse("soon"))
        .isInstanceOf(TypeConversionException.class);
  }

  @Test
  void hostpathNeedsEndpointNodeAndStateAndOneRoleAtMost() {
    var err = new StringWriter();
    var cl = Main.commandLine(TestEnvironments.of(Map.of(), dir, dir));
    cl.setOut(new PrintWriter(new StringWriter(), true));
    cl.setErr(new PrintWriter(err, true));

    assertThat(cl.execute("csi", "hostpath", "--node-id", "n1")).isEqualTo(2);
    assertThat(err.toString()).contains("--endpoint").contains("--state");

    assertThat(
            cl.execute(
                "csi",
                "hostpath",
                "--endpoint",
                "/tmp/x.sock",
                "--node-id",
                "n1",
                "--state",
                "s",
                "--controller-only",
                "--node-only"))
        .isEqualTo(2);
    assertThat(
            cl.execute(
                "csi",
                "hostpath",
                "--endpoint",
                "/tmp/x.sock",
                "--node-id",
                "n1",
                "--state",
                "s",
                "--capacity",
                "lots"))
        .isEqualTo(2);
  }
}
