package dev.quartermaster.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/**
 * The build's version, from the resource Maven filters at build time; "dev" when run from an
 * unfiltered tree.
 */
public final class VersionInfo implements IVersionProvider {
  private static final String RESOURCE = "/qm-version.properties";

  public static String version() {
    try (InputStream in = VersionInfo.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        return "dev";
      }
      var props = new Properties();
      props.load(in);
      var v = props.getProperty("version", "").trim();
      return v.isEmpty() || v.contains("${") ? "dev" : v;
    } catch (IOException e) {
      return "dev";
    }
  }

  public static String javaVersion() {
    return Runtime.version() + " (" + System.getProperty("java.vendor", "unknown vendor") + ")";
  }

  @Override
  public String[] getVersion() {
    return new String[] {"qm " + version(), "java " + javaVersion()};
  }
}
