package dev.quartermaster.api.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The API's own instant writer and reader agree with {@link Instant#toString} and {@link
 * Instant#parse} on every instant they take, and leave every other text to the general reader.
 */
class IsoInstantsTest {
  @Test
  void writesWhatToStringWritesAndReadsItBack() {
    var random = new SplittableRandom(50);
    for (int i = 0; i < 200_000; i++) {
      long drawn = random.nextLong(-40_000_000_000L, 260_000_000_000L);
      int nano =
          switch (random.nextInt(4)) {
            case 0 -> 0;
            case 1 -> random.nextInt(1000) * 1_000_000;
            case 2 -> random.nextInt(1_000_000) * 1_000;
            default -> random.nextInt(1_000_000_000);
          };
      var at = Instant.ofEpochSecond(drawn, nano);
      var text = IsoInstants.format(at);
      assertThat(text).isEqualTo(at.toString());
      var read = IsoInstants.parseOrNull(text);
      if (read != null) {
        assertThat(read).as(text).isEqualTo(at);
      } else {
        long seconds = at.getEpochSecond();
        assertThat(seconds < -30_610_224_000L || seconds > 253_402_300_799L)
            .as("only years outside 1000..9999 are left: " + text)
            .isTrue();
      }
    }
  }

  @Test
  void readsAnyFractionOfOneToNineDigitsAsInstantParseDoes() {
    for (var text :
        new String[] {
          "2026-03-01T12:04:00Z",
          "2026-03-01T12:04:00.5Z",
          "2026-03-01T12:04:00.05Z",
          "2026-03-01T12:04:00.1234Z",
          "2026-03-01T12:04:00.123456789Z",
          "2024-02-29T23:59:59.999999999Z",
          "1000-01-01T00:00:00Z",
          "9999-12-31T23:59:59Z"
        }) {
      assertThat(IsoInstants.parseOrNull(text)).as(text).isEqualTo(Instant.parse(text));
    }
  }

  @Test
  void leavesEveryOtherFormToTheGeneralReader() {
    for (var text :
        new String[] {
          "2026-03-01T13:04:00+01:00",
          "2026-03-01t12:04:00Z",
          "2026-03-01T12:04Z",
          "2026-02-29T12:04:00Z",
          "2026-13-01T12:04:00Z",
          "2026-03-01T24:00:00Z",
          "2026-03-01T23:59:60Z",
          "2026-03-01T12:04:00.Z",
          "2026-03-01T12:04:00.1234567890Z",
          "2026-03-01T12:04:0aZ",
          "+2026-03-01T12:04:00Z",
          "0999-03-01T12:04:00Z",
          "2026-03-01 12:04:00Z",
          ""
        }) {
      assertThat(IsoInstants.parseOrNull(text)).as(text).isNull();
    }
  }

  /** Through the codec: the fast form and the general reader's forms decode as before. */
  @Test
  void theCodecReadsOffsetsAndRefusesBadDatesAsBefore() throws Exception {
    var json = ObjectCodec.json();
    assertThat(json.readValue("\"2026-03-01T13:04:00+01:00\"", Instant.class))
        .isEqualTo(Instant.parse("2026-03-01T12:04:00Z"));
    assertThat(json.readValue("\"2026-03-01T12:04:00.5Z\"", Instant.class))
        .isEqualTo(Instant.parse("2026-03-01T12:04:00.5Z"));
    assertThat(json.writeValueAsString(Instant.parse("2026-03-01T12:04:00.500Z")))
        .isEqualTo("\"2026-03-01T12:04:00.500Z\"");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> json.readValue("\"2026-02-30T12:04:00Z\"", Instant.class))
        .isInstanceOf(com.fasterxml.jackson.databind.JsonMappingException.class);
  }
}
