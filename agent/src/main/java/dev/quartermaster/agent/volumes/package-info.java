/**
 * The node side of volumes: publishing a task's volumes before it starts ({@link
 * dev.quartermaster.agent.volumes.VolumeMounts}) and releasing the claims of task incarnations that
 * are over ({@link dev.quartermaster.agent.volumes.VolumeReleaser}), through one per-volume gate.
 */
package dev.quartermaster.agent.volumes;
