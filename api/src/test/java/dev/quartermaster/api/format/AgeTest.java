package dev.quartermaster.api.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AgeTest {

  @ParameterizedTest(name = "{0}s -> {1}")
  @CsvSource({
    "0, 0s",
    "5, 5s",
    "119, 119s",
    "120, 2m",
    "200, 3m20s",
    "599, 9m59s",
    "600, 10m",
    "10799, 179m",
    "10800, 3h",
    "7500, 125m",
    "11100, 3h5m",
    "28800, 8h",
    "172799, 47h",
    "172800, 2d",
    "273600, 3d4h",
    "691200, 8d",
    "3456000, 40d",
    "63072000, 2y",
    "94608000, 3y",
    "252288000, 8y",
  })
  void formatsLikeKubectl(long seconds, String expected) {
    assertThat(Age.of(Duration.ofSeconds(seconds))).isEqualTo(expected);
  }

  @Test
  void clockSkewOfASecondReadsAsNow() {
    assertThat(Age.of(Duration.ofMillis(-900))).isEqualTo("0s");
    assertThat(Age.of(Duration.ofSeconds(-1))).isEqualTo("0s");
    assertThat(Age.of(Duration.ofSeconds(-5))).isEqualTo("<invalid>");
  }

  @Test
  void measuresFromTheGivenNow() {
    var now = Instant.parse("2026-03-01T12:00:00Z");
    assertThat(Age.since(Optional.of(now.minusSeconds(4 * 86400)), now)).isEqualTo("4d");
    assertThat(Age.since(Optional.empty(), now)).isEqualTo("<unknown>");
  }
}
