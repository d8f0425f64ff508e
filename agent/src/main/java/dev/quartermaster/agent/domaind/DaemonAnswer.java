package dev.quartermaster.agent.domaind;

/** What a readiness check learnt from a domain daemon's socket. */
public sealed interface DaemonAnswer {

  /** The daemon answered and is ready. */
  record Ready(String domain, long pid) implements DaemonAnswer {}

  /** The daemon answered but is still starting. */
  record Starting(String domain, long pid) implements DaemonAnswer {}

  /** No usable answer: no socket yet, refused, timed out, or not the protocol. */
  record Silent(String reason) implements DaemonAnswer {}
}
