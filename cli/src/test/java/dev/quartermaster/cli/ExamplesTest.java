package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.validation.ObjectValidator;
import dev.quartermaster.cli.apply.ManifestReader;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The manifests in examples/ are what new users apply first: every one must decode and validate. */
class ExamplesTest {
  /** The repository root; Maven runs tests in the module directory. */
  static final Path REPO = Path.of("..").toAbsolutePath().normalize();

  @Test
  void everyExampleDecodesAndIsValid() {
    var env = TestEnvironments.of(Map.of(), REPO, REPO);
    var manifests = new ManifestReader(env).read(List.of("examples"));

    assertThat(manifests).isNotEmpty();
    for (var m : manifests) {
      assertThat(ObjectValidator.validate(m.object())).as(m.where()).isEmpty();
    }
  }

  @Test
  void thereIsAnExampleOfEveryKind() {
    var env = TestEnvironments.of(Map.of(), REPO, REPO);
    var kinds = new ManifestReader(env).read(List.of("examples")).stream()
        .map(m -> m.object().kind().name()).collect(Collectors.toSet());

    assertThat(kinds).containsExactlyInAnyOrderElementsOf(Kinds.ALL.stream().map(Kind::name).toList());
  }
}
