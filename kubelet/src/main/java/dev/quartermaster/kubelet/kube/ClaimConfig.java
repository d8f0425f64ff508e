package dev.quartermaster.kubelet.kube;

import dev.quartermaster.api.validation.Names;
import java.util.Map;
import java.util.Optional;

/**
 * This driver's opaque device configuration, as a claim (or its DeviceClass) gives it in {@code
 * spec.devices.config[].opaque.parameters} for driver {@code gpu.quartermaster.dev}:
 *
 * <pre>{@code
 * apiVersion: gpu.quartermaster.dev/v1
 * kind: ChannelConfig
 * computeDomain: train-1
 * }</pre>
 *
 * The compute domain is the one the node must join while the claim is prepared (its helper, the
 * IMEX daemon's stand-in, runs as long as some prepared claim asks for it). Anything else is a
 * mistake in the claim and refuses the prepare naming the field: a config silently ignored would
 * start the pod without the domain it asked for.
 */
public record ClaimConfig(Optional<String> computeDomain) {
  public static final String API_VERSION = "gpu.quartermaster.dev/v1";
  public static final String KIND = "ChannelConfig";
  public static final String COMPUTE_DOMAIN = "computeDomain";

  public static final ClaimConfig NONE = new ClaimConfig(Optional.empty());

  /** Thrown for parameters this driver does not accept; the message names the field. */
  public static final class Invalid extends Exception {
    Invalid(String message) {
      super(message);
    }
  }

  /** The config in {@code parameters} (a JSON object, as the API server returns it). */
  public static ClaimConfig parse(Map<String, Object> parameters) throws Invalid {
    var apiVersion = parameters.get("apiVersion");
    if (!API_VERSION.equals(apiVersion)) {
      throw new Invalid("apiVersion must be " + API_VERSION + ", not " + apiVersion);
    }
    var kind = parameters.get("kind");
    if (!KIND.equals(kind)) {
      throw new Invalid("kind must be " + KIND + ", not " + kind);
    }
    for (var field : parameters.keySet()) {
      if (!field.equals("apiVersion") && !field.equals("kind") && !field.equals(COMPUTE_DOMAIN)) {
        throw new Invalid("unknown field '" + field + "' (known: " + COMPUTE_DOMAIN + ")");
      }
    }
    var domain = parameters.get(COMPUTE_DOMAIN);
    if (domain == null) {
      return NONE;
    }
    if (!(domain instanceof String name) || !Names.isDnsLabel(name)) {
      throw new Invalid(COMPUTE_DOMAIN + " '" + domain + "': " + Names.DNS_LABEL_RULE);
    }
    return new ClaimConfig(Optional.of(name));
  }
}
