package dev.quartermaster.api.validation;

import dev.quartermaster.api.error.Violation;
import java.util.ArrayList;
import java.util.List;

/** Collects every violation of one object, so a user sees all of them at once. */
final class Violations {
  private final List<Violation> found = new ArrayList<>();

  void add(String field, String rule) {
    found.add(new Violation(field, rule));
  }

  void check(boolean ok, String field, String rule) {
    if (!ok) {
      add(field, rule);
    }
  }

  void dnsLabel(String field, String value) {
    if (value.isEmpty()) {
      add(field, "required");
    } else if (!Names.isDnsLabel(value)) {
      add(field, Names.DNS_LABEL_RULE);
    }
  }

  void dnsSubdomain(String field, String value) {
    if (value.isEmpty()) {
      add(field, "required");
    } else if (!Names.isDnsSubdomain(value)) {
      add(field, Names.DNS_SUBDOMAIN_RULE);
    }
  }

  /** Every name in {@code names} is a DNS label and appears once. */
  void uniqueDnsLabels(String field, List<String> names) {
    var seen = new java.util.HashSet<String>();
    for (int i = 0; i < names.size(); i++) {
      dnsLabel(field + "[" + i + "]", names.get(i));
      check(
          seen.add(names.get(i)) || names.get(i).isEmpty(),
          field + "[" + i + "]",
          "must be unique, '" + names.get(i) + "' appears twice");
    }
  }

  List<Violation> list() {
    return List.copyOf(found);
  }
}
