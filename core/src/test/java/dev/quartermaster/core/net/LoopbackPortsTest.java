package dev.quartermaster.core.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

class LoopbackPortsTest {
  @Test
  void aFreePortIsBelowTheEphemeralRangeAndCanBeListenedOn() throws Exception {
    for (int i = 0; i < 20; i++) {
      int port = LoopbackPorts.free();
      assertThat(port).isBetween(1, LoopbackPorts.ephemeralStart() - 1);
      try (var s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        assertThat(s.getLocalPort()).isEqualTo(port);
      }
    }
  }
}
