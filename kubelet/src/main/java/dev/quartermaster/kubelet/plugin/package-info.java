/**
 * The kubelet plugin as a process ({@link dev.quartermaster.kubelet.plugin.KubeletPlugin}): its
 * configuration, state directory, ledger, devices and the two sockets the kubelet talks to.
 */
package dev.quartermaster.kubelet.plugin;
