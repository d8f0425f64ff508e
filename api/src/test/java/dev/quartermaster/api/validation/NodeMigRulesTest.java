package dev.quartermaster.api.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.node.MigMode;
import dev.quartermaster.api.node.Node;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@code spec.mig} as an operator applies it: GPU names and modes, each refused by its field. */
class NodeMigRulesTest {
  static Node node(String mig) {
    return (Node)
        ObjectCodec.fromJson(
            ("{\"kind\":\"Node\",\"metadata\":{\"name\":\"n\"},\"spec\":{\"mig\":" + mig + "}}")
                .getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aGpuNameThatIsNoDeviceNameIsRefusedNamingIt() {
    assertThat(ObjectValidator.validate(node("{\"gpu-0\":\"Dynamic\",\"GPU 1\":\"Static\"}")))
        .extracting(Violation::field)
        .containsExactly("spec.mig.GPU 1");
    assertThat(node("{\"gpu-0\":\"Static\"}").spec().mig()).containsEntry("gpu-0", MigMode.Static);
  }

  @Test
  void aModeThatIsNoneOfThemIsRefusedWhenRead() {
    assertThatThrownBy(() -> node("{\"gpu-0\":\"dynamik\"}"))
        .hasMessageContaining("spec.mig.gpu-0: must be one of [Dynamic, Static]");
  }
}
