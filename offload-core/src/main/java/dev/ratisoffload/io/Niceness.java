package dev.ratisoffload.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lowers the CPU priority of the calling thread (its nice value, Linux), so that background work in a
 * server gives way to the server's own threads whenever both want the CPU, and runs at full speed when
 * the server is idle. Java cannot set a thread's nice value itself; {@code renice} on the thread's id
 * can, and lowering a priority needs no privilege. Threads the thread creates inherit the value.
 * Elsewhere (no {@code /proc/thread-self}, no {@code renice}) it does nothing.
 */
public final class Niceness {

  private static final Logger LOG = LoggerFactory.getLogger(Niceness.class);
  private static final Path THREAD_SELF = Path.of("/proc/thread-self");
  private static volatile boolean warned;

  private Niceness() {}

  /**
   * Sets the calling thread's nice value; 0 leaves it as it is.
   *
   * @return whether the value was set
   */
  public static boolean lowerCurrentThread(int nice) {
    if (nice <= 0 || !Files.isSymbolicLink(THREAD_SELF)) {
      return false;
    }
    try {
      String tid = Files.readSymbolicLink(THREAD_SELF).getFileName().toString();
      Process renice = new ProcessBuilder("renice", "-n", Integer.toString(Math.min(nice, 19)), "-p", tid)
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      if (renice.waitFor(5, TimeUnit.SECONDS) && renice.exitValue() == 0) {
        return true;
      }
      renice.destroyForcibly();
      warnOnce("renice exited with " + (renice.isAlive() ? "no answer" : renice.exitValue()));
    } catch (IOException e) {
      warnOnce(e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return false;
  }

  private static void warnOnce(String why) {
    if (!warned) {
      warned = true;
      LOG.warn("cannot lower the CPU priority of background threads ({}); they run at the server's priority", why);
    }
  }
}
