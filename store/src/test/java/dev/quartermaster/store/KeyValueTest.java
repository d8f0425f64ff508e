package dev.quartermaster.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class KeyValueTest {
  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void theConstructorCopiesInAndValueCopiesOut() {
    var given = bytes("abc");
    var kv = new KeyValue("/k", given, 1, 2, 1);
    given[0] = 'x';
    assertThat(kv.value()).isEqualTo(bytes("abc"));
    kv.value()[1] = 'y';
    assertThat(kv.value()).isEqualTo(bytes("abc"));
    assertThat(kv.value()).isNotSameAs(kv.value());
  }

  @Test
  void sameValueComparesBytesOnlyAndEqualsComparesEverything() {
    var a = new KeyValue("/a", bytes("v"), 1, 2, 1);
    var b = KeyValue.owning("/b", bytes("v"), 5, 6, 2);
    assertThat(a.sameValue(b)).isTrue();
    assertThat(a.valueEquals(bytes("v"))).isTrue();
    assertThat(a).isNotEqualTo(b);
    assertThat(new KeyValue("/a", bytes("v"), 1, 2, 1)).isEqualTo(a).hasSameHashCodeAs(a);
    assertThat(a.sameValue(new KeyValue("/a", bytes("w"), 1, 2, 1))).isFalse();
  }

  @Test
  void aNullValueIsEmpty() {
    assertThat(new KeyValue("/k", null, 1, 1, 1).value()).isEmpty();
  }
}
