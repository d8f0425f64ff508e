package dev.quartermaster.agent.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The resolver parses a spec again exactly when its file changed, and never answers from a spec
 * that is gone or replaced.
 */
class CdiResolverTest {
  @TempDir Path cdi;

  private static String spec(String device, String node) {
    return """
        {"cdiVersion":"0.5.0","kind":"nvidia.com/gpu","devices":[{"name":"%s",
         "containerEdits":{"deviceNodes":[{"path":"%s"}]}}]}"""
        .formatted(device, node);
  }

  private static List<String> nodes(CdiResolver resolver, String name) throws Exception {
    return resolver.resolve(List.of(name)).deviceNodes().stream().map(CdiDeviceNode::path).toList();
  }

  /** As the agent writes specs: a new file renamed over the old one (a new inode). */
  private void replace(String file, String content) throws Exception {
    var temp = cdi.resolve(file + ".tmp");
    Files.writeString(temp, content);
    Files.move(
        temp,
        cdi.resolve(file),
        StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE);
  }

  @Test
  void anUnchangedSpecIsParsedOnceOverManyResolves() throws Exception {
    replace("a.json", spec("claim-a", "/dev/nvidia0"));
    replace("b.json", spec("claim-b", "/dev/nvidia1"));
    var resolver = new CdiResolver(List.of(cdi));

    for (int i = 0; i < 5; i++) {
      assertThat(nodes(resolver, "nvidia.com/gpu=claim-a")).containsExactly("/dev/nvidia0");
    }

    // Each of the two files once; a resolver that parsed on every call would have read 10.
    assertThat(resolver.specsRead()).isEqualTo(2);
  }

  @Test
  void aSpecReplacedByRenameIsReadAgain() throws Exception {
    replace("a.json", spec("claim-a", "/dev/nvidia0"));
    var resolver = new CdiResolver(List.of(cdi));
    assertThat(nodes(resolver, "nvidia.com/gpu=claim-a")).containsExactly("/dev/nvidia0");

    // Same name, same length: only the inode tells the new file from the old.
    replace("a.json", spec("claim-a", "/dev/nvidia7"));

    assertThat(nodes(resolver, "nvidia.com/gpu=claim-a")).containsExactly("/dev/nvidia7");
    assertThat(resolver.specsRead()).isEqualTo(2);
  }

  @Test
  void aSpecRewrittenInPlaceIsReadAgain() throws Exception {
    var file = cdi.resolve("a.json");
    Files.writeString(file, spec("claim-a", "/dev/nvidia0"));
    var resolver = new CdiResolver(List.of(cdi));
    assertThat(nodes(resolver, "nvidia.com/gpu=claim-a")).containsExactly("/dev/nvidia0");

    // An editor's save keeps the inode; the size changes here.
    Files.writeString(file, spec("claim-a", "/dev/nvidia10"));

    assertThat(nodes(resolver, "nvidia.com/gpu=claim-a")).containsExactly("/dev/nvidia10");
  }

  @Test
  void aRemovedSpecNoLongerResolvesUntilItIsWrittenAgain() throws Exception {
    replace("a.json", spec("claim-a", "/dev/nvidia0"));
    var resolver = new CdiResolver(List.of(cdi));
    assertThat(nodes(resolver, "nvidia.com/gpu=claim-a")).containsExactly("/dev/nvidia0");
    Files.delete(cdi.resolve("a.json"));
    assertThatThrownBy(() -> nodes(resolver, "nvidia.com/gpu=claim-a"))
        .isInstanceOf(CdiResolver.UnresolvableException.class)
        .hasMessageContaining("unresolvable CDI device nvidia.com/gpu=claim-a");

    replace("a.json", spec("claim-a", "/dev/nvidia3"));

    assertThat(nodes(resolver, "nvidia.com/gpu=claim-a")).containsExactly("/dev/nvidia3");
  }
}
