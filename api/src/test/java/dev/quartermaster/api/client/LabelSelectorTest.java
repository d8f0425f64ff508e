package dev.quartermaster.api.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.error.ApiException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LabelSelectorTest {
  @Test
  void parsesEveryForm() {
    var s = LabelSelector.parse("gpu=a100, zone!=b,spot,!draining,tier in (x, y),env notin (dev)");
    assertThat(s.matches(Map.of("gpu", "a100", "spot", "1", "tier", "y", "env", "prod"))).isTrue();
    assertThat(s.matches(Map.of("gpu", "a100", "spot", "1", "tier", "z"))).isFalse();
    assertThat(s.matches(Map.of("gpu", "a100", "spot", "1", "tier", "x", "draining", "yes")))
        .isFalse();
    assertThat(s.matches(Map.of("gpu", "a100", "spot", "1", "tier", "x", "zone", "b"))).isFalse();
    assertThat(s.toString()).isEqualTo("gpu=a100,zone!=b,spot,!draining,tier in (x,y),env!=dev");
  }

  @Test
  void emptySelectsEverything() {
    assertThat(LabelSelector.parse("").matches(Map.of())).isTrue();
    assertThat(LabelSelector.parse(" ").isEmpty()).isTrue();
  }

  @Test
  void garbageIsABadRequestNamingTheParameter() {
    assertThatThrownBy(() -> LabelSelector.parse("a=b=c"))
        .isInstanceOf(ApiException.class)
        .hasMessageStartingWith("labelSelector: cannot parse 'a=b=c'");
  }
}
