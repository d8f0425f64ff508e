package dev.quartermaster.cli.describe;

import dev.quartermaster.api.claim.AgentFinalizer;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.cli.format.Times;
import java.time.Instant;
import java.util.TreeMap;

/** The part every description starts with: who the object is, and whether it is going away. */
final class MetadataSection {
  private MetadataSection() {}

  /**
   * A finalizer, and for a node's agent finalizer who takes it off: the node holds the claim from
   * its allocation there until its agent has let it go, or until the node is fenced if it is down
   * for good, and a deleted claim that waits for a node that is down says so.
   */
  private static String explained(String finalizer) {
    return AgentFinalizer.parse(finalizer)
        .map(
            a ->
                finalizer
                    + " (node "
                    + a.node()
                    + "'s agent takes it off once it has let the claim go; if the node is down for"
                    + " good: qm node fence "
                    + a.node()
                    + ")")
        .orElse(finalizer);
  }

  static void write(ApiObject object, Instant now, Description out) {
    var m = object.metadata();
    out.field("Name", m.name())
        .field("Kind", object.kind().name())
        .field("UID", m.uid())
        .field("Revision", m.revision())
        .field("Generation", m.generation())
        .values(
            "Labels",
            new TreeMap<>(m.labels())
                .entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList())
        .field("Created", Times.at(m.createdAt(), now));
    m.deletedAt()
        .ifPresent(
            at ->
                out.field(
                    "Deleting",
                    "since "
                        + Times.at(at, now)
                        + (m.finalizers().isEmpty()
                            ? ""
                            : ", waiting for finalizers: "
                                + String.join(
                                    ", ",
                                    m.finalizers().stream()
                                        .map(MetadataSection::explained)
                                        .toList()))));
    if (!m.isDeleting()) {
      out.field("Finalizers", String.join(", ", m.finalizers()));
    }
    out.field(
        "Owner",
        m.owner()
            .map(o -> o.kind().toLowerCase(java.util.Locale.ROOT) + "/" + o.name())
            .orElse(""));
  }
}
