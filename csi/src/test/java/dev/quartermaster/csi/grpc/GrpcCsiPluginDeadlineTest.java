package dev.quartermaster.csi.grpc;

import static dev.quartermaster.csi.grpc.Calls.failure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.csi.plugin.CsiCall;
import dev.quartermaster.csi.plugin.CsiCode;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What the client does when the thing at the socket is not a working CSI plugin. */
@Timeout(60)
class GrpcCsiPluginDeadlineTest {
  private final Path dir = Calls.shortTempDir();
  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (var c : closing.reversed()) {
      c.close();
    }
    Calls.deleteTree(dir);
  }

  @Test
  void aPluginThatNeverAnswersFailsTheCallWithDeadlineExceededNamingIt() throws Exception {
    var socket = dir.resolve("hang.sock");
    var server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    closing.add(server);
    server.bind(UnixDomainSocketAddress.of(socket));
    // Connections are accepted by the kernel's backlog and then ignored: a hung plugin.

    var client = GrpcCsiPlugin.open("unix://" + socket, Duration.ofMillis(300));
    closing.add(client);

    var error = failure(client.probe());
    assertThat(error.code()).isEqualTo(CsiCode.DEADLINE_EXCEEDED);
    assertThat(error.call()).isEqualTo(CsiCall.Probe);
    assertThat(error.getMessage()).startsWith("Probe: DEADLINE_EXCEEDED");

    var create = failure(client.deleteVolume("v"));
    assertThat(create.call()).isEqualTo(CsiCall.DeleteVolume);
    assertThat(create.code()).isEqualTo(CsiCode.DEADLINE_EXCEEDED);
  }

  @Test
  void aPluginThatAnswersGarbageFailsTheCallNamingIt() throws Exception {
    var socket = dir.resolve("junk.sock");
    var server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    closing.add(server);
    server.bind(UnixDomainSocketAddress.of(socket));
    var answering =
        Thread.ofVirtual()
            .start(
                () -> {
                  try {
                    while (true) {
                      SocketChannel c = server.accept();
                      closing.add(c);
                      c.write(
                          ByteBuffer.wrap(
                              "HTTP/1.0 200 OK\r\n\r\nthis is not gRPC\n"
                                  .repeat(20)
                                  .getBytes(StandardCharsets.US_ASCII)));
                    }
                  } catch (Exception e) {
                    // server closed: done
                  }
                });
    closing.add(answering::interrupt);

    var client = GrpcCsiPlugin.open(socket.toString(), Duration.ofMillis(500));
    closing.add(client);

    var error = failure(client.nodeInfo());
    assertThat(error.call()).isEqualTo(CsiCall.NodeGetInfo);
    assertThat(error.code())
        .isIn(CsiCode.UNAVAILABLE, CsiCode.INTERNAL, CsiCode.UNKNOWN, CsiCode.DEADLINE_EXCEEDED);
  }

  @Test
  void nothingListeningIsUnavailable() {
    var client = GrpcCsiPlugin.open("unix://" + dir.resolve("none.sock"), Duration.ofSeconds(5));
    closing.add(client);

    var error = failure(client.probe());
    assertThat(error.code()).isEqualTo(CsiCode.UNAVAILABLE);
    assertThat(error.call()).isEqualTo(CsiCall.Probe);
  }

  @Test
  void endpointsMustBeAbsoluteUnixPathsThatFitInSunPath() {
    assertThat(Endpoints.socketPath("unix:///tmp/x.sock")).isEqualTo(Path.of("/tmp/x.sock"));
    assertThat(Endpoints.socketPath("/tmp/x.sock")).isEqualTo(Path.of("/tmp/x.sock"));
    assertThatThrownBy(() -> Endpoints.socketPath("tcp://localhost:1"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Endpoints.socketPath("unix://relative.sock"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Endpoints.socketPath("/" + "d".repeat(120)))
        .hasMessageContaining("longer than");
  }
}
