package dev.quartermaster.api.validation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The written-out name rules against the regular expressions that define them (kept here as the
 * reference): edge cases by hand, then many strings drawn from the characters that matter.
 */
class NamesTest {
  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern LABEL_NAME =
      Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");
  private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  static boolean dnsLabel(String s) {
    return s.length() <= 63 && DNS_LABEL.matcher(s).matches();
  }

  static boolean dnsSubdomain(String s) {
    if (s.isEmpty() || s.length() > 253) {
      return false;
    }
    for (var part : s.split("\\.", -1)) {
      if (!dnsLabel(part)) {
        return false;
      }
    }
    return true;
  }

  static boolean qualifiedName(String s) {
    var slash = s.indexOf('/');
    var name = slash < 0 ? s : s.substring(slash + 1);
    var prefixOk = slash < 0 || dnsSubdomain(s.substring(0, slash));
    return prefixOk && name.length() <= 63 && LABEL_NAME.matcher(name).matches();
  }

  static boolean labelValue(String s) {
    return s.isEmpty() || (s.length() <= 63 && LABEL_NAME.matcher(s).matches());
  }

  @Test
  void edgeCases() {
    assertThat(Names.isDnsLabel("a")).isTrue();
    assertThat(Names.isDnsLabel("")).isFalse();
    assertThat(Names.isDnsLabel("-a")).isFalse();
    assertThat(Names.isDnsLabel("a-")).isFalse();
    assertThat(Names.isDnsLabel("a".repeat(63))).isTrue();
    assertThat(Names.isDnsLabel("a".repeat(64))).isFalse();
    assertThat(Names.isDnsSubdomain("a.b")).isTrue();
    assertThat(Names.isDnsSubdomain("a..b")).isFalse();
    assertThat(Names.isDnsSubdomain("a.")).isFalse();
    assertThat(Names.isDnsSubdomain((("a".repeat(63) + ".").repeat(4)).substring(0, 253)))
        .isEqualTo(dnsSubdomain((("a".repeat(63) + ".").repeat(4)).substring(0, 253)));
    assertThat(Names.isQualifiedName("quartermaster.dev/claims")).isTrue();
    assertThat(Names.isQualifiedName("/claims")).isFalse();
    assertThat(Names.isQualifiedName("a/")).isFalse();
    assertThat(Names.isQualifiedName("a/b/c")).isFalse();
    assertThat(Names.isLabelValue("")).isTrue();
    assertThat(Names.isLabelValue("A.b_c-D")).isTrue();
    assertThat(Names.isLabelValue("_a")).isFalse();
    assertThat(Names.isEnvName("_A1")).isTrue();
    assertThat(Names.isEnvName("1A")).isFalse();
    assertThat(Names.isEnvName("")).isFalse();
  }

  @Test
  void agreeWithTheRegularExpressionsOnManyStrings() {
    var random = new SplittableRandom(13);
    var alphabet = "ab-Z09._/ é";
    var strings = new ArrayList<String>();
    for (int i = 0; i < 200_000; i++) {
      int length = random.nextInt(8) == 0 ? 60 + random.nextInt(10) : random.nextInt(9);
      var b = new StringBuilder();
      for (int j = 0; j < length; j++) {
        b.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      strings.add(b.toString());
    }
    agree(strings, Names::isDnsLabel, NamesTest::dnsLabel);
    agree(strings, Names::isDnsSubdomain, NamesTest::dnsSubdomain);
    agree(strings, Names::isQualifiedName, NamesTest::qualifiedName);
    agree(strings, Names::isLabelValue, NamesTest::labelValue);
    agree(strings, Names::isEnvName, s -> ENV_NAME.matcher(s).matches());
  }

  private static void agree(
      List<String> strings, Predicate<String> written, Predicate<String> reference) {
    int accepted = 0;
    for (var s : strings) {
      assertThat(written.test(s)).as("'%s'", s).isEqualTo(reference.test(s));
      accepted += reference.test(s) ? 1 : 0;
    }
    assertThat(accepted).as("the draw reaches both answers").isBetween(1, strings.size() - 1);
  }
}
