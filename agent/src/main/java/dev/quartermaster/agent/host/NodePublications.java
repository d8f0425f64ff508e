package dev.quartermaster.agent.host;

import java.util.Set;

/**
 * The volume publications that exist on this node: every publish target a plugin was asked to make
 * and has not been asked to remove, whichever agent asked. The node keeps them, not the store: a
 * fenced task's claim is freed without its node, so only the node still knows its target, and an
 * agent that comes back must find it to unpublish it (a leftover target keeps the plugin from
 * unstaging the volume, and so from ever handing it over).
 */
@FunctionalInterface
public interface NodePublications {

  /** Every publish target path on this node ({@code <state>/csi/publish/<task uid>/<volume>}). */
  Set<String> targets();
}
