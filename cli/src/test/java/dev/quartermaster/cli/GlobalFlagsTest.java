package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class GlobalFlagsTest {
  @Test
  void leadingClientFlagsMoveBehindTheCommandAndBeforeADoubleDash() {
    assertThat(GlobalFlags.hoist("--server", "http://a:1", "node", "cordon", "n1"))
        .containsExactly("node", "cordon", "n1", "--server", "http://a:1");
    assertThat(GlobalFlags.hoist("-o=yaml", "--debug", "get", "tasks"))
        .containsExactly("get", "tasks", "-o=yaml", "--debug");
    assertThat(GlobalFlags.hoist("--context", "prod", "logs", "t", "--", "--server"))
        .containsExactly("logs", "t", "--context", "prod", "--", "--server");
  }

  @Test
  void anythingElseIsLeftAsItIs() {
    assertThat(GlobalFlags.hoist("get", "tasks", "--server", "x"))
        .containsExactly("get", "tasks", "--server", "x");
    assertThat(GlobalFlags.hoist("--server")).containsExactly("--server");
    assertThat(GlobalFlags.hoist("--version")).containsExactly("--version");
    assertThat(GlobalFlags.hoist("--server", "x"))
        .as("no command to move it behind")
        .containsExactly("--server", "x");
  }
}
