package dev.quartermaster.api.node;

/** The CSI services a plugin instance serves. */
public enum PluginRole {
  /** Identity + Controller: CreateVolume, ControllerPublish, ... */
  Controller,
  /** Identity + Node: NodeStage, NodePublish, ... */
  Node
}
