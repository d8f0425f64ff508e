/**
 * Device health: a pure state machine ({@link dev.quartermaster.agent.health.HealthTracker}) fed by
 * sources at the I/O edge: NVML XID events ({@code dev.quartermaster.agent.nvml.NvmlXidMonitor})
 * where NVML loads, else a simulated root's health files ({@link
 * dev.quartermaster.agent.health.HealthFileSource}). Unhealthy devices carry a reason and recover
 * after a configurable clean period; if monitoring cannot start, health is Unknown with the reason,
 * and Unknown is not allocatable (fail closed).
 */
package dev.quartermaster.agent.health;
