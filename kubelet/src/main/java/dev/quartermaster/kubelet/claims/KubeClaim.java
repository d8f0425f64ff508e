package dev.quartermaster.kubelet.claims;

import java.util.Objects;

/**
 * A ResourceClaim as the kubelet names it in NodePrepareResources and NodeUnprepareResources: its
 * namespace, name and uid, nothing more (the claim itself may already be deleted at unprepare). Not
 * validated beyond presence: whatever the kubelet sends must get an answer, and an unusable uid is
 * answered as a failed claim, not a failed call.
 */
public record KubeClaim(String namespace, String name, String uid) {
  public KubeClaim {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(uid, "uid");
  }

  @Override
  public String toString() {
    return namespace + "/" + name + " (uid " + uid + ")";
  }
}
