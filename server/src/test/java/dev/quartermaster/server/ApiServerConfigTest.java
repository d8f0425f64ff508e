package dev.quartermaster.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ApiServerConfigTest {
  private final ApiServerConfig defaults =
      ApiServerConfig.of(new InMemoryApiClient(), Path.of("/data"));

  @Test
  void withChangesOnlyWhatItSets() {
    var changed =
        defaults.with(
            b -> {
              b.host = "0.0.0.0";
              b.maxBodyBytes = 2048;
            });
    assertThat(changed)
        .isEqualTo(
            new ApiServerConfig(
                "0.0.0.0",
                defaults.port(),
                defaults.dataDir(),
                2048,
                defaults.api(),
                defaults.env(),
                defaults.watch(),
                defaults.connections(),
                defaults.authenticator(),
                defaults.accessRule(),
                defaults.storeRevision(),
                defaults.meterRegistry(),
                defaults.nodeTokens(),
                defaults.tls()));
    assertThat(defaults.withListen("10.0.0.1", 0))
        .isEqualTo(
            defaults.with(
                b -> {
                  b.host = "10.0.0.1";
                  b.port = 0;
                }));
    assertThat(defaults.withStoreRevision(() -> 7).storeRevision()).isPresent();
  }

  @Test
  void whatItBuildsIsCheckedAsTheRecordIs() {
    assertThatThrownBy(() -> defaults.withListen("h", 70_000))
        .hasMessage("port must be 0..65535, got 70000");
    assertThatThrownBy(() -> defaults.withMaxBodyBytes(0)).hasMessageContaining("maxBodyBytes");
  }
}
