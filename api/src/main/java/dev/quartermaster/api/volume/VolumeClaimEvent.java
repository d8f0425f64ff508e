package dev.quartermaster.api.volume;

import java.util.Map;

/**
 * A step of a volume claim's life that its writer has done and now records; {@link
 * VolumeClaimMachine#apply} says what the claim becomes, or why it cannot.
 */
public sealed interface VolumeClaimEvent {

  /** Who records it: the server lets a node's agent write only its own events. */
  Writer writer();

  enum Writer {
    /** The volume controller: it grants, attaches, detaches and frees. */
    Controller,
    /** The agent of the claim's node: it lets go of the node's part, or says why it cannot. */
    Agent
  }

  /**
   * ControllerPublishVolume to the claim's node returned {@code publishContext} (or the plugin has
   * no controller publish, and the claim keeps its own).
   */
  record Attached(Map<String, String> publishContext) implements VolumeClaimEvent {
    public Attached {
      publishContext = publishContext == null ? Map.of() : Map.copyOf(publishContext);
    }

    @Override
    public Writer writer() {
      return Writer.Controller;
    }
  }

  /**
   * The node's agent unpublished and unstaged the volume for the claim: the node's part is let go.
   */
  record NodeReleased() implements VolumeClaimEvent {
    @Override
    public Writer writer() {
      return Writer.Agent;
    }
  }

  /**
   * The node's release keeps failing with {@code error} (the plugin's answer), said on the claim.
   */
  record ReleaseFailed(String error) implements VolumeClaimEvent {
    public ReleaseFailed {
      error = error == null ? "" : error;
    }

    @Override
    public Writer writer() {
      return Writer.Agent;
    }
  }

  /**
   * The node was fenced or its Node removed: nothing runs there any more, its part is let go on its
   * behalf.
   */
  record NodeGone() implements VolumeClaimEvent {
    @Override
    public Writer writer() {
      return Writer.Controller;
    }
  }

  /** ControllerUnpublishVolume from the node returned, or none was needed. */
  record ControllerReleased() implements VolumeClaimEvent {
    @Override
    public Writer writer() {
      return Writer.Controller;
    }
  }

  /** Nothing holds the volume for the claim any more: it leaves the volume's list. */
  record Freed() implements VolumeClaimEvent {
    @Override
    public Writer writer() {
      return Writer.Controller;
    }
  }
}
