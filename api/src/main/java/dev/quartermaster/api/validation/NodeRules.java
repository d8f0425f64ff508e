package dev.quartermaster.api.validation;

import dev.quartermaster.api.node.GpuSharing;
import dev.quartermaster.api.node.NodeSpec;

/** The rules of a node's spec: its GPUs' modes. */
final class NodeRules {
  private NodeRules() {}

  static void spec(NodeSpec spec, Violations v) {
    // A GPU's device name: the node's slice says which exist (the store checks that).
    spec.mig().keySet().forEach(gpu -> v.dnsLabel("spec.mig." + gpu, gpu));
    spec.sharing()
        .forEach(
            (gpu, how) -> {
              var field = "spec.sharing." + gpu;
              v.dnsLabel(field, gpu);
              v.check(how.mode() != null, field + ".mode", "is required (TimeSliced or Mps)");
              v.check(
                  how.replicas() >= GpuSharing.MIN_REPLICAS
                      && how.replicas() <= GpuSharing.MAX_REPLICAS,
                  field + ".replicas",
                  "must be from "
                      + GpuSharing.MIN_REPLICAS
                      + " to "
                      + GpuSharing.MAX_REPLICAS
                      + " (how many claims share the GPU)");
              v.check(
                  !spec.mig().containsKey(gpu),
                  field,
                  "GPU "
                      + gpu
                      + " is in MIG mode (spec.mig."
                      + gpu
                      + "); a GPU is in one mode at a time: turn MIG off first");
            });
  }
}
