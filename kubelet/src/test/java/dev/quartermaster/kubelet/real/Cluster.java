package dev.quartermaster.kubelet.real;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * A running cluster that {@code bench/kubelet/cluster.sh up} started: its {@code cluster.env} names
 * the admin kubeconfig, the node, the kubelet's plugin directories, containerd's CDI directory, the
 * images, and the {@code qm} jar the plugin runs from.
 */
record Cluster(
    Path dir,
    Path adminKubeconfig,
    String node,
    Path registryDir,
    Path pluginsDir,
    Path cdiDir,
    String pauseImage,
    String busyboxImage,
    Path qmJar,
    String apiServer) {

  static final String ENV = "QM_KUBE_CLUSTER";

  static Cluster fromEnv() throws IOException {
    var dir = System.getenv(ENV);
    if (dir == null || dir.isEmpty()) {
      throw new IllegalStateException(
          ENV
              + " is not set: this harness runs on a cluster that `./qm bench kubelet` starts"
              + " (see bench/kubelet/README.md)");
    }
    var root = Path.of(dir);
    Map<String, String> env = new HashMap<>();
    for (var line : Files.readAllLines(root.resolve("cluster.env"))) {
      var eq = line.indexOf('=');
      if (eq > 0 && !line.startsWith("#")) {
        env.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return new Cluster(
        root,
        Path.of(need(env, "ADMIN_KUBECONFIG")),
        need(env, "NODE"),
        Path.of(need(env, "REGISTRY_DIR")),
        Path.of(need(env, "PLUGINS_DIR")),
        Path.of(need(env, "CDI_DIR")),
        need(env, "PAUSE_IMAGE"),
        need(env, "BUSYBOX_IMAGE"),
        Path.of(need(env, "QM_JAR")),
        need(env, "API_SERVER"));
  }

  private static String need(Map<String, String> env, String key) {
    var value = env.get(key);
    if (value == null) {
      throw new IllegalStateException("cluster.env has no " + key);
    }
    return value;
  }
}
