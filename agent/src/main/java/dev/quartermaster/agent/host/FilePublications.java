package dev.quartermaster.agent.host;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;

/**
 * The machine's publications: the entries under {@code <state>/csi/publish/<task uid>/}, where
 * every plugin was asked to publish (a plugin removes the target on NodeUnpublish, as CSI asks). A
 * target is an entry whatever it is (a bind-mount directory, a link), so links are not followed.
 */
public record FilePublications(Path publishDir) implements NodePublications {

  @Override
  public Set<String> targets() {
    var out = new TreeSet<String>();
    try (DirectoryStream<Path> uids = Files.newDirectoryStream(publishDir)) {
      for (var uid : uids) {
        if (!Files.isDirectory(uid, LinkOption.NOFOLLOW_LINKS)) {
          continue;
        }
        try (DirectoryStream<Path> targets = Files.newDirectoryStream(uid)) {
          targets.forEach(t -> out.add(t.toString()));
        } catch (NoSuchFileException gone) {
          // unpublished meanwhile
        }
      }
    } catch (NoSuchFileException none) {
      return Set.of(); // nothing was ever published on this node
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot list the publications under " + publishDir + ": " + e.getMessage(), e);
    }
    return out;
  }
}
