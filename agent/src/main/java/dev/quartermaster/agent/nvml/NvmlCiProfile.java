package dev.quartermaster.agent.nvml;

/**
 * A compute instance profile inside one GPU instance ({@code nvmlComputeInstanceProfileInfo_t}).
 *
 * @param id the profile's id, what create and list calls take
 * @param sliceCount compute slices it takes of the GPU instance's
 * @param instanceCount how many fit the GPU instance
 */
public record NvmlCiProfile(int id, int sliceCount, int instanceCount) {}
