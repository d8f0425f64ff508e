/**
 * The CSI plugins on this node: found in the plugin directory (or the simulation's map), probed
 * periodically, reported in {@code Node.status.plugins}, and handed to the volume code by name.
 */
package dev.quartermaster.agent.plugins;
