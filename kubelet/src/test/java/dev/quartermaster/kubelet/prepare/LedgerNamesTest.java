package dev.quartermaster.kubelet.prepare;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.validation.Names;
import org.junit.jupiter.api.Test;

/** Kubernetes claim names (DNS subdomains) as ledger names (DNS labels). */
class LedgerNamesTest {

  @Test
  void aLabelIsKept() {
    assertThat(LedgerNames.of("train-a-gpu-x7k2p")).isEqualTo("train-a-gpu-x7k2p");
  }

  @Test
  void dotsBecomeDashes() {
    assertThat(LedgerNames.of("train.v2")).isEqualTo("train-v2");
  }

  @Test
  void aLongNameIsCutWithAHashSoTwoStayApart() {
    var common = "a".repeat(80);
    var one = LedgerNames.of(common + ".one");
    var two = LedgerNames.of(common + ".two");
    assertThat(one).hasSizeLessThanOrEqualTo(63).isNotEqualTo(two);
    assertThat(Names.isDnsLabel(one)).isTrue();
    assertThat(Names.isDnsLabel(two)).isTrue();
  }

  @Test
  void evenAnEmptyOrOddNameBecomesALabel() {
    assertThat(Names.isDnsLabel(LedgerNames.of(""))).isTrue();
    assertThat(Names.isDnsLabel(LedgerNames.of("-.-"))).isTrue();
    assertThat(Names.isDnsLabel(LedgerNames.of("x".repeat(62) + ".y"))).isTrue();
  }
}
