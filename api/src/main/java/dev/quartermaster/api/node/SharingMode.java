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
  TimeSliced
}
