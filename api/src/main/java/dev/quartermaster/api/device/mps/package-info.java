/**
 * MPS-shared GPUs: a GPU the operator shares by MPS ({@code qm node share … mps}) offers one device
 * of class {@link dev.quartermaster.api.device.mps.MpsShares#DEVICE_CLASS}, {@code gpu-0-mps}, that
 * many claims hold at once, each a share of its compute and memory (Kubernetes' consumable
 * capacity, KEP-5075). A claim's request says how much ({@code share: {compute: 50, memory:
 * 20Gi}}); the allocator records the share as a device named for its GPU, its size and a number
 * ({@code gpu-0-mps-50pct-20gib-0}), so the device-name → holder model every layer keeps holds as
 * it is: a share is held by one claim, and {@link dev.quartermaster.api.device.use.DeviceUse} sums
 * the shares held on a GPU against what the GPU offers. The name is the share's only record of its
 * size, so no layer can read a different size from another.
 */
package dev.quartermaster.api.device.mps;
