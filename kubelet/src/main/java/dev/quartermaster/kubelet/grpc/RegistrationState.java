package dev.quartermaster.kubelet.grpc;

import java.util.Objects;

/** What the kubelet last said about registering this plugin. */
public sealed interface RegistrationState {

  /** The kubelet has not called NotifyRegistrationStatus yet. */
  record NotNotified() implements RegistrationState {}

  /** The kubelet registered the plugin: it will call the DRA service. */
  record Registered() implements RegistrationState {}

  /** The kubelet refused the plugin: no claim will be prepared here until it registers. */
  record Refused(String error) implements RegistrationState {
    public Refused {
      Objects.requireNonNull(error, "error");
    }
  }
}
