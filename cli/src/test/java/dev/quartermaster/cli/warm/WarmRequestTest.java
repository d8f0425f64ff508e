package dev.quartermaster.cli.warm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The request as bash's {@code printf '%s\0'} writes it, and what the warm client refuses. */
class WarmRequestTest {
  @TempDir Path dir;

  private static ByteArrayInputStream fields(String... fields) {
    var text = new StringBuilder();
    for (var field : fields) {
      text.append(field).append('\0');
    }
    return new ByteArrayInputStream(text.toString().getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void readsTheLaunchersFields() throws Exception {
    var request =
        WarmRequest.read(
            fields(
                "qm-warm/1",
                "s3cret",
                "/home/ana/work",
                "2",
                "QM_SERVER=http://x:1",
                "LANG=C.UTF-8",
                "3",
                "get",
                "nodes",
                "a name with spaces\nand a line"));
    assertThat(request.secret()).isEqualTo("s3cret");
    assertThat(request.workingDir()).isEqualTo(Path.of("/home/ana/work"));
    assertThat(request.variables()).isEqualTo(Map.of("QM_SERVER", "http://x:1", "LANG", "C.UTF-8"));
    assertThat(request.args()).isEqualTo(List.of("get", "nodes", "a name with spaces\nand a line"));
  }

  @Test
  void refusesWhatTheLauncherDoesNotSend() {
    assertThatThrownBy(() -> WarmRequest.read(fields("GET / HTTP/1.1\r\n")))
        .isInstanceOf(IOException.class);
    assertThatThrownBy(
            () -> WarmRequest.read(fields("qm-warm/1", "s", "/", "1", "LD_PRELOAD=/x.so", "0")))
        .hasMessageContaining("LD_PRELOAD");
    assertThatThrownBy(() -> WarmRequest.read(fields("qm-warm/1", "s", "relative", "0", "0")))
        .hasMessageContaining("absolute");
    assertThatThrownBy(() -> WarmRequest.read(fields("qm-warm/1", "s", "/", "0", "2", "get")))
        .hasMessageContaining("ended");
    var huge = "x".repeat(WarmRequest.MAX_BYTES);
    assertThatThrownBy(() -> WarmRequest.read(fields("qm-warm/1", "s", "/", "0", "1", huge)))
        .hasMessageContaining("bytes");
  }

  @Test
  void theOutputsCharacterSetIsTheLocales() {
    assertThat(WarmClient.charset(Map.of("LANG", "en_US.UTF-8"))).isEqualTo(StandardCharsets.UTF_8);
    assertThat(WarmClient.charset(Map.of("LANG", "de_DE.utf8@euro")))
        .isEqualTo(StandardCharsets.UTF_8);
    assertThat(WarmClient.charset(Map.of("LANG", "en_US.UTF-8", "LC_ALL", "C")))
        .isEqualTo(StandardCharsets.US_ASCII);
    assertThat(WarmClient.charset(Map.of("LC_CTYPE", "en_US.ISO-8859-1")))
        .isEqualTo(StandardCharsets.ISO_8859_1);
    assertThat(WarmClient.charset(Map.of())).isEqualTo(StandardCharsets.US_ASCII);
  }

  @Test
  void theEndpointFileIsItsOwnersAlone() throws Exception {
    var endpoint = WarmEndpoint.fresh(4242);
    var file = dir.resolve("warm.0");
    endpoint.writeTo(file);
    assertThat(java.nio.file.Files.getPosixFilePermissions(file))
        .containsExactlyInAnyOrder(
            java.nio.file.attribute.PosixFilePermission.OWNER_READ,
            java.nio.file.attribute.PosixFilePermission.OWNER_WRITE);
    assertThat(WarmEndpoint.read(file)).contains(endpoint);
    assertThat(endpoint.requestSecret()).isNotEqualTo(endpoint.replySecret());
  }
}
