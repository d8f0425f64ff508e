/**
 * Time-sliced GPUs: a GPU the operator shares by turns ({@code spec.sharing}, {@code qm node
 * share}) offers {@code replicas} devices of class {@link
 * dev.quartermaster.api.device.timeslice.TimeSlices#DEVICE_CLASS}, each held by one claim like any
 * device, and never itself: I1 needs nothing new, since a replica is a device of its own and the
 * whole GPU is not offered while it is shared. The names ({@code gpu-0-ts-2}) and attributes
 * ({@code parent}, {@code replica}, {@code replicas}) are this package's, so every layer reads a
 * replica's GPU the same way.
 */
package dev.quartermaster.api.device.timeslice;
