package dev.quartermaster.cli.apply;

import dev.quartermaster.api.meta.ApiObject;

/**
 * One document of {@code apply}'s input.
 *
 * @param source the file as the user named it, or {@code <stdin>}
 * @param index the document's position in its source, from 1
 */
public record Manifest(String source, int index, ApiObject object) {

  /**
   * {@code examples/workload.yaml document 1 (workload/training)}: where to look when it is wrong.
   */
  public String where() {
    return source + " document " + index + " (" + object.ref() + ")";
  }
}
