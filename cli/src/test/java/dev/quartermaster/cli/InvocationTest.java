package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class InvocationTest {
  @Test
  void leadingClientFlagsMoveBehindTheCommandAndBeforeADoubleDash() {
    assertThat(Invocation.read("--server", "http://a:1", "node", "cordon", "n1").forTree())
        .containsExactly("node", "cordon", "n1", "--server", "http://a:1");
    assertThat(Invocation.read("-o=yaml", "--debug", "get", "tasks").forTree())
        .containsExactly("get", "tasks", "-o=yaml", "--debug");
    assertThat(Invocation.read("--context", "prod", "logs", "t", "--", "--server").forTree())
        .containsExactly("logs", "t", "--context", "prod", "--", "--server");
  }

  @Test
  void anythingElseIsLeftAsItIs() {
    assertThat(Invocation.read("get", "tasks", "--server", "x").forTree())
        .containsExactly("get", "tasks", "--server", "x");
    assertThat(Invocation.read("--server").forTree()).containsExactly("--server");
    assertThat(Invocation.read("--version").forTree()).containsExactly("--version");
    assertThat(Invocation.read("--server", "x").forTree())
        .as("no command to move it behind")
        .containsExactly("--server", "x");
  }

  @Test
  void theCommandIsTheFirstWordPastTheLeadingFlags() {
    assertThat(Invocation.read("--server=x", "-o", "wide", "get", "nodes").command())
        .hasValue("get");
    assertThat(Invocation.read("--version").command()).isEmpty();
    assertThat(Invocation.read().command()).isEmpty();
    assertThat(Invocation.read("--server", "x").command()).isEmpty();
  }

  /**
   * The launcher reads past the same leading flags to find the command word (its JVM options depend
   * on it): a flag one list has and the other lacks would start a server with a client's JVM.
   */
  @Test
  void theLauncherSkipsTheSameFlags() throws IOException {
    var launcher = Files.readString(ExamplesTest.REPO.resolve("qm"));
    var withValue =
        Pattern.compile("^\\s+(--server\\|[^)]*)\\) shift; \\[", Pattern.MULTILINE)
            .matcher(launcher);
    var attached =
        Pattern.compile("^\\s+(--debug\\|[^)]*)\\) shift ;;", Pattern.MULTILINE).matcher(launcher);
    assertThat(withValue.find()).as("the launcher's flags with a value").isTrue();
    assertThat(attached.find()).as("the launcher's flags alone or with =value").isTrue();
    var flags = new HashSet<>(Invocation.CLIENT_FLAGS);
    flags.addAll(Invocation.OUTPUT_FLAGS);
    assertThat(words(withValue.group(1))).isEqualTo(flags);
    var alone = new HashSet<String>();
    alone.add(Invocation.DEBUG);
    flags.forEach(f -> alone.add(f + "=*"));
    assertThat(words(attached.group(1))).isEqualTo(alone);
  }

  private static Set<String> words(String casePattern) {
    return new HashSet<>(Arrays.asList(casePattern.split("\\|")));
  }
}
