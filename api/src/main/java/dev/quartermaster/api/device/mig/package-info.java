/**
 * MIG geometry and placement: which GPU instances a GPU model offers ({@link
 * dev.quartermaster.api.device.mig.MigGeometry}), each as a device consuming its GPU's counters so
 * that {@link dev.quartermaster.api.device.use.DeviceUse} judges overlap as it judges any sharing;
 * what stands on a GPU ({@link dev.quartermaster.api.device.mig.MigOccupancy}); and the pure choice
 * of where a new instance goes ({@link dev.quartermaster.api.device.mig.LeastFragmenting}), with
 * the words for a fragmented GPU ({@link dev.quartermaster.api.device.mig.MigFragmentation}).
 * Nothing here does I/O or changes a GPU: the allocator decides with it, the agent creates what it
 * decided.
 */
package dev.quartermaster.api.device.mig;
