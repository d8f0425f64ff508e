package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.channels.spi.SelectorProvider;
import org.junit.jupiter.api.Test;

class SelectorProvidersTest {

  /**
   * The class Main names must be the one this JDK picks by itself: a JDK that changed its default
   * would otherwise give client commands another provider than the rest of the world, or none.
   */
  @Test
  void theNamedProviderIsTheOneThisJdkPicksOnThisPlatform() {
    var named = SelectorProviders.platformDefault(System.getProperty("os.name"));
    assertThat(named).as("a platform qm runs on (Linux, macOS)").isPresent();
    assertThat(System.getProperty(SelectorProviders.PROPERTY))
        .as("the test JVM searches as usual")
        .isNull();
    assertThat(SelectorProvider.provider().getClass().getName()).isEqualTo(named.get());
  }

  @Test
  void anUnknownPlatformIsLeftToTheJdk() {
    assertThat(SelectorProviders.platformDefault("Windows 11")).isEmpty();
    assertThat(SelectorProviders.platformDefault("Linux"))
        .contains("sun.nio.ch.EPollSelectorProvider");
    assertThat(SelectorProviders.platformDefault("Mac OS X"))
        .contains("sun.nio.ch.KQueueSelectorProvider");
  }
}
