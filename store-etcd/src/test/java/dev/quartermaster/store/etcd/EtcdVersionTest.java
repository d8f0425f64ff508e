package dev.quartermaster.store.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** etcd 3.4 is refused at connect, naming the member and its version (issue 43, item 20). */
class EtcdVersionTest {
  @Test
  void threeDotFiveAndLaterAreSupportedThreeDotFourIsNot() {
    assertThat(EtcdVersion.supported("3.5.0")).isTrue();
    assertThat(EtcdVersion.supported("3.5.16")).isTrue();
    assertThat(EtcdVersion.supported("3.6.1")).isTrue();
    assertThat(EtcdVersion.supported("4.0.0")).isTrue();
    assertThat(EtcdVersion.supported("3.4.23")).isFalse();
    assertThat(EtcdVersion.supported("3.3.27")).isFalse();
    assertThat(EtcdVersion.supported("2.3.8")).isFalse();
    assertThat(EtcdVersion.supported("")).isFalse();
    assertThat(EtcdVersion.supported("not a version")).isFalse();
  }

  @Test
  void aRefusalNamesEachOldMemberItsVersionAndWhatIsNeeded() {
    var versions = new LinkedHashMap<String, String>();
    versions.put("http://127.0.0.1:2379", "3.5.16");
    versions.put("http://127.0.0.1:22379", "3.4.23");
    assertThat(EtcdVersion.refusal(versions))
        .hasValueSatisfying(
            why ->
                assertThat(why)
                    .startsWith("http://127.0.0.1:22379 runs etcd 3.4.23;")
                    .contains("needs etcd 3.5 or later")
                    .doesNotContain("2379 runs etcd 3.5"));
    assertThat(EtcdVersion.refusal(Map.of("http://127.0.0.1:2379", "3.5.16"))).isEmpty();
  }

  @Test
  void aRealMemberReportsItsVersion(@TempDir Path dir) throws Exception {
    var binary = EtcdProcesses.binary();
    assumeTrue(binary.isPresent(), EtcdProcesses.HOW_TO_INSTALL);
    try (var cluster = EtcdProcesses.start(binary.get(), dir, 1);
        var store = new EtcdStore(cluster.endpoints(), "/version-test")) {
      var versions = store.memberVersions(Duration.ofSeconds(10));
      assertThat(versions).containsOnlyKeys(cluster.endpoints());
      assertThat(versions.values()).allSatisfy(v -> assertThat(v).matches("\\d+\\.\\d+\\.\\d+.*"));
      assertThat(EtcdVersion.refusal(versions)).as("the installed etcd %s", versions).isEmpty();
    }
  }
}
