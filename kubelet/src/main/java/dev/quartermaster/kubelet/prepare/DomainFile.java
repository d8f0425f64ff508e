package dev.quartermaster.kubelet.prepare;

import dev.quartermaster.agent.effects.DomainMembership;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The compute domains this node is a member of, as a file of one name per line, replaced
 * atomically: on Kubernetes there is no Quartermaster node object to publish them in, and the file
 * lets an operator (or an IMEX configuration step) see exactly which domains the ledger wants. The
 * effects reconciler writes it only after the domain's helper is running and before it stops.
 */
public final class DomainFile implements DomainMembership {
  private final Path file;

  public DomainFile(Path file) {
    this.file = Objects.requireNonNull(file, "file");
  }

  @Override
  public void publish(Set<String> domains) throws IOException {
    var text = new StringBuilder();
    new TreeSet<>(domains).forEach(d -> text.append(d).append('\n'));
    Files.createDirectories(file.getParent());
    var tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(tmp, text, StandardCharsets.UTF_8);
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }
}
