package dev.quartermaster.kubelet.grpc;

import java.util.List;

/** The names the kubelet's plugin registration uses for a DRA driver. */
public final class DraServices {
  /** {@code PluginInfo.type} of a DRA driver. */
  public static final String PLUGIN_TYPE = "DRAPlugin";

  /** The DRA services, as {@code <version>.<service>}: what {@code supported_versions} lists. */
  public static final String V1 = "v1.DRAPlugin";

  public static final String V1BETA1 = "v1beta1.DRAPlugin";

  /** Newest first, as the kubelet prefers them. */
  public static final List<String> SUPPORTED = List.of(V1, V1BETA1);

  private DraServices() {}
}
