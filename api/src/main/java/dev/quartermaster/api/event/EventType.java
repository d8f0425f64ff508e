package dev.quartermaster.api.event;

/** Whether an event reports things going as planned or something an operator may need to act on. */
public enum EventType {
  Normal,
  Warning
}
