package dev.quartermaster.api.validation;

import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import java.util.List;

/** Rules every object's metadata follows. */
final class MetaRules {
  static final int MAX_LABELS = 64;
  static final int MAX_FINALIZERS = 16;

  private MetaRules() {}

  static void check(ObjectMeta m, dev.quartermaster.api.meta.Kind<?> kind, Violations v) {
    if (m.name().isEmpty()) {
      v.add("metadata.name", "required");
    } else if (!Names.isObjectName(kind, m.name())) {
      v.add("metadata.name", Names.objectNameRule(kind));
    }
    v.check(
        m.labels().size() <= MAX_LABELS,
        "metadata.labels",
        "must have at most " + MAX_LABELS + " entries");
    m.labels()
        .forEach(
            (key, value) -> {
              // The field's path is spelled only for a violation: most writes have none, and many
              // labels.
              if (!Names.isQualifiedName(key)) {
                v.add(
                    "metadata.labels." + key,
                    "key must be [prefix/]name: a DNS subdomain prefix and a name of letters, digits, '-', '_', '.'");
              }
              if (!Names.isLabelValue(value)) {
                v.add(
                    "metadata.labels." + key,
                    "value must be at most 63 letters, digits, '-', '_', '.', starting and ending with a letter or digit");
              }
            });
    v.check(
        m.finalizers().size() <= MAX_FINALIZERS,
        "metadata.finalizers",
        "must have at most " + MAX_FINALIZERS + " entries");
    List<String> finalizers = m.finalizers();
    for (int i = 0; i < finalizers.size(); i++) {
      if (!Names.isQualifiedName(finalizers.get(i))) {
        v.add(
            "metadata.finalizers[" + i + "]",
            "must be a qualified name like quartermaster.dev/claims");
      }
    }
    m.owner()
        .ifPresent(
            o -> {
              v.check(
                  Kinds.byName(o.kind()).isPresent(),
                  "metadata.owner.kind",
                  "must be a known kind");
              v.dnsLabel("metadata.owner.name", o.name());
            });
    v.check(m.revision() >= 0, "metadata.revision", "must be >= 0");
  }
}
