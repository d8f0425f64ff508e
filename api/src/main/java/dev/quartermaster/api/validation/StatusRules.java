package dev.quartermaster.api.validation;

import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.domain.ComputeDomainStatus;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.node.LogEndpoint;
import dev.quartermaster.api.node.NodeStatus;
import java.util.List;

/**
 * Rules for the status fields that other parts act on. A status writer is trusted with the state it
 * reports, not with the shape of names: a node name becomes a lookup key and a device name a CDI
 * file name, so "../../etc", "NOPE" or a NUL byte is refused exactly as it would be in a spec.
 */
final class StatusRules {
  /** Identifiers (boot id, versions, reasons): one line, short. */
  static final int MAX_WORD = 256;

  /**
   * Human messages may span lines, within reason: generous, because an agent's status write that is
   * refused for a long error text would be retried for ever, hiding the error it wanted to report.
   */
  static final int MAX_MESSAGE = 32 * 1024;

  static final int MAX_ENTRIES = 1024;

  private StatusRules() {}

  static void claim(ResourceClaimStatus s, Violations v) {
    s.allocation()
        .ifPresent(
            a -> {
              v.dnsLabel("status.allocation.node", a.node());
              v.check(
                  a.devices().size() <= ClaimRules.MAX_REQUESTS * ClaimRules.MAX_COUNT,
                  "status.allocation.devices",
                  "must have at most "
                      + ClaimRules.MAX_REQUESTS * ClaimRules.MAX_COUNT
                      + " entries");
              for (int i = 0; i < a.devices().size(); i++) {
                var d = a.devices().get(i);
                v.dnsLabel("status.allocation.devices[" + i + "].request", d.request());
                v.dnsLabel("status.allocation.devices[" + i + "].device", d.device());
              }
            });
    bounded("status.reservedFor", s.reservedFor().size(), v);
    for (int i = 0; i < s.reservedFor().size(); i++) {
      v.dnsLabel("status.reservedFor[" + i + "]", s.reservedFor().get(i));
    }
    bounded("status.prepare", s.prepare().size(), v);
    s.prepare()
        .forEach(
            (node, state) -> {
              var at = "status.prepare." + node;
              v.check(Names.isDnsLabel(node), at, "key " + Names.DNS_LABEL_RULE);
              message(at + ".reason", state.reason(), v);
              bounded(at + ".cdiDevices", state.cdiDevices().size(), v);
              for (int i = 0; i < state.cdiDevices().size(); i++) {
                word(at + ".cdiDevices[" + i + "]", state.cdiDevices().get(i), v);
              }
            });
    conditions(s.conditions(), v);
  }

  static void node(NodeStatus s, Violations v) {
    word("status.bootId", s.bootId(), v);
    word("status.agentVersion", s.agentVersion(), v);
    bounded("status.computeDomains", s.computeDomains().size(), v);
    for (int i = 0; i < s.computeDomains().size(); i++) {
      v.dnsLabel("status.computeDomains[" + i + "]", s.computeDomains().get(i));
    }
    bounded("status.plugins", s.plugins().size(), v);
    for (int i = 0; i < s.plugins().size(); i++) {
      var p = s.plugins().get(i);
      var at = "status.plugins[" + i + "]";
      word(at + ".name", p.name(), v);
      word(at + ".endpoint", p.endpoint(), v);
      word(at + ".version", p.version(), v);
      word(at + ".csiNodeId", p.csiNodeId(), v);
      message(at + ".message", p.message(), v);
    }
    bounded("status.domainDaemons", s.domainDaemons().size(), v);
    for (int i = 0; i < s.domainDaemons().size(); i++) {
      var d = s.domainDaemons().get(i);
      var at = "status.domainDaemons[" + i + "]";
      v.dnsLabel(at + ".domain", d.domain());
      v.check(d.pid().map(p -> p > 0).orElse(true), at + ".pid", "must be a positive process id");
      v.check(d.restarts() >= 0, at + ".restarts", "must be >= 0");
      message(at + ".message", d.message(), v);
    }
    s.logs()
        .ifPresent(
            l -> {
              v.check(
                  LogEndpoint.ADDRESS.matcher(l.address()).matches(),
                  "status.logs.address",
                  "must be host:port");
              v.check(
                  LogEndpoint.SHA256.matcher(l.certificateSha256()).matches(),
                  "status.logs.certificateSha256",
                  "must be 64 lowercase hex digits (the SHA-256 of the DER certificate)");
              v.check(
                  LogEndpoint.CREDENTIAL.matcher(l.credential()).matches(),
                  "status.logs.credential",
                  "must be '"
                      + LogEndpoint.ADMIN_TOKEN
                      + "' or '"
                      + LogEndpoint.NODE_TOKEN
                      + "<16 hex digits>'");
            });
    conditions(s.conditions(), v);
  }

  static void domain(ComputeDomainStatus s, Violations v) {
    bounded("status.nodes", s.nodes().size(), v);
    for (int i = 0; i < s.nodes().size(); i++) {
      v.dnsLabel("status.nodes[" + i + "].node", s.nodes().get(i).node());
    }
    for (int i = 0; i < s.claims().size(); i++) {
      v.dnsSubdomain("status.claims[" + i + "]", s.claims().get(i));
    }
    conditions(s.conditions(), v);
  }

  static void conditions(List<Condition> conditions, Violations v) {
    bounded("status.conditions", conditions.size(), v);
    for (int i = 0; i < conditions.size(); i++) {
      var c = conditions.get(i);
      var at = "status.conditions[" + i + "]";
      word(at + ".type", c.type(), v);
      word(at + ".reason", c.reason(), v);
      message(at + ".message", c.message(), v);
    }
  }

  private static void bounded(String field, int size, Violations v) {
    v.check(size <= MAX_ENTRIES, field, "must have at most " + MAX_ENTRIES + " entries");
  }

  /** One line of printable text: no control characters at all. */
  static void word(String field, String value, Violations v) {
    v.check(value.length() <= MAX_WORD, field, "must be at most " + MAX_WORD + " characters");
    v.check(
        value.chars().noneMatch(Character::isISOControl),
        field,
        "must not contain control characters");
  }

  /** Text for people: newlines and tabs allowed, other control characters (NUL, ESC) not. */
  static void message(String field, String value, Violations v) {
    v.check(value.length() <= MAX_MESSAGE, field, "must be at most " + MAX_MESSAGE + " characters");
    v.check(
        value.chars().noneMatch(c -> Character.isISOControl(c) && c != '\n' && c != '\t'),
        field,
        "must not contain control characters other than newline and tab");
  }
}
