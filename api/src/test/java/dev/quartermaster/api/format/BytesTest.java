package dev.quartermaster.api.format;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BytesTest {

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "0, 0",
    "1023, 1023",
    "1024, 1Ki",
    "536870912, 512Mi",
    "10737418240, 10Gi",
    "85899345920, 80Gi",
    "1649267441664, 1.5Ti",
    "80000000000, 74.5Gi",
  })
  void binaryUnits(long bytes, String expected) {
    assertThat(Bytes.human(bytes)).isEqualTo(expected);
  }
}
