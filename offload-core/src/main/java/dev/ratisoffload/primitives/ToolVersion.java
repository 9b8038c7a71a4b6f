package dev.ratisoffload.primitives;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The project's version, as the build wrote it into a resource. */
public final class ToolVersion {

  private static final String VERSION = load();

  private ToolVersion() {}

  public static String get() {
    return VERSION;
  }

  private static String load() {
    Properties properties = new Properties();
    try (InputStream in = ToolVersion.class.getResourceAsStream("version.properties")) {
      if (in != null) {
        properties.load(in);
      }
    } catch (IOException ignored) {
      // reported as unknown
    }
    return properties.getProperty("version", "unknown");
  }
}
