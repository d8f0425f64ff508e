/**
 * The CSI plugin as Quartermaster's logic sees it ({@link dev.quartermaster.csi.plugin.CsiPlugin}):
 * plain records and futures, no gRPC, so controllers, agents and the simulation share it.
 */
package dev.quartermaster.csi.plugin;
