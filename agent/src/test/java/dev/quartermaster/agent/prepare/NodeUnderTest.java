package dev.quartermaster.agent.prepare;

import java.util.Set;

/**
 * A node's prepare/unprepare as the incident scenarios drive it: the real ledger with its effects,
 * or the naive NVIDIA-like variant kept in test code. Each claim wants device gpu-0 and compute
 * domain cd-1.
 */
interface NodeUnderTest {

  /** Returns true when the prepare was acknowledged as prepared. */
  boolean prepare(String claim);

  /** Unprepare; always acknowledged. */
  void unprepare(String claim);

  /** The compute domains published on the node now. */
  Set<String> membership();

  /** The domains whose helper process runs now. */
  Set<String> helpers();

  /** Claims holding each device, according to the node's own books (for I1 inside the ledger). */
  java.util.Map<String, Set<String>> holdersByDevice();

  /** The agent crashes (losing unsynced writes) and starts again from its checkpoint. */
  void restart();

  /** Lets virtual time pass between calls. */
  void tick();
}
