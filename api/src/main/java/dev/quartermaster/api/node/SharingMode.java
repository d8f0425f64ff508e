package dev.quartermaster.api.node;

/**
 * How one GPU is shared by claims other than by MIG ({@code qm node share}); a GPU named in neither
 * {@code spec.sharing} nor {@code spec.mig} is handed out whole, to one claim.
 */
public enum SharingMode {
  /**
   * The GPU offers {@code replicas} devices of class {@code timeslice}, each given to one claim;
   * their processes take turns on the whole GPU. Nothing isolates them: any client may use all of
   * the GPU's memory, and one client's fault may end the others' work.
   */
  TimeSliced,

  /**
   * The GPU offers one device of class {@code mps} that up to {@code replicas} claims hold at once,
   * each a share of its compute and a hard cap on its memory, served by one MPS control daemon. All
   * clients of the GPU are one fault domain: a fatal fault in one ends the others' GPU work.
   */
  Mps
}
