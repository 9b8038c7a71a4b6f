package dev.ratisoffload.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** Picks free TCP ports on the loopback address (the only address tests may listen on). */
public final class FreePorts {
  private FreePorts() {
  }

  /**
   * A port that was free a moment ago. Another process could take it before it is bound again;
   * on a test machine that is rare, and the bind then fails loudly rather than silently.
   */
  public static int next() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot find a free port on 127.0.0.1", e);
    }
  }

  /** {@code count} different free ports (the kernel may hand out a just-closed port twice). */
  public static List<Integer> distinct(int count) {
    final Set<Integer> ports = new LinkedHashSet<>();
    while (ports.size() < count) {
      ports.add(next());
    }
    return List.copyOf(ports);
  }
}
