/**
 * MIG on this node: what the agent asks of a GPU ({@link dev.quartermaster.agent.mig.MigControl}:
 * its MIG mode, the instances that exist, create one at a placement, destroy one), with a real
 * implementation over NVML ({@link dev.quartermaster.agent.mig.NvmlMig}; its hardware test runs on
 * a lent GPU machine through {@code scripts/device-mig-check.sh}) and a simulated one whose state
 * outlives the agent; what a GPU offers in the node's DeviceSlice given the operator's wish and its
 * mode ({@link dev.quartermaster.agent.mig.MigOffer}); and the instances driven to what the ledger
 * holds, so a crash between "created" and "recorded" is repaired at restart ({@link
 * dev.quartermaster.agent.mig.MigInstances}).
 */
package dev.quartermaster.agent.mig;
