/**
 * The NVIDIA control nodes ({@code nvidiactl}, {@code nvidia-uvm}, {@code nvidia-uvm-tools}
 * required; {@code nvidia-modeset} optional): {@link
 * dev.quartermaster.agent.controlnodes.ControlNodeCheck} checks the host's tree now (type and
 * number of each), {@link dev.quartermaster.agent.controlnodes.ControlNodeWatcher} re-checks on
 * change (file watch plus periodic rescan) and {@link
 * dev.quartermaster.agent.controlnodes.ControlNodeCreator} creates missing ones as nvidia-modprobe
 * does. A node lacking any required one is not {@code DevicesReady}, and the message names the path
 * (promise I3).
 */
package dev.quartermaster.agent.controlnodes;
