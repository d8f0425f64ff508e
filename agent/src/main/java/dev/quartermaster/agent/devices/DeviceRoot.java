package dev.quartermaster.agent.devices;

import java.io.IOException;

/** Where the agent finds its devices. Today a described directory ({@link DirectoryDeviceRoot}). */
public interface DeviceRoot {

  /** Looks at the devices now. */
  Inventory scan() throws IOException;
}
