package dev.quartermaster.agent.host;

import dev.quartermaster.csi.plugin.CsiPlugin;
import java.io.IOException;
import java.util.List;

/**
 * The CSI plugins that listen on this node: their endpoints, and a connection to one. {@link
 * OsCsiEndpoints} lists the {@code *.sock} files of the plugin directory; the simulation and tests
 * use {@link MapCsiEndpoints}.
 */
public interface CsiEndpoints {

  /** The endpoints there now, sorted (e.g. {@code unix:///var/lib/qm/plugins/hostpath.sock}). */
  List<String> list() throws IOException;

  /** A client for {@code endpoint}; calls on it may fail, connecting itself does not block. */
  CsiPlugin connect(String endpoint);

  /** A node without CSI plugins. */
  CsiEndpoints NONE =
      new CsiEndpoints() {
        @Override
        public List<String> list() {
          return List.of();
        }

        @Override
        public CsiPlugin connect(String endpoint) {
          throw new IllegalArgumentException("no CSI plugin at " + endpoint);
        }
      };
}
