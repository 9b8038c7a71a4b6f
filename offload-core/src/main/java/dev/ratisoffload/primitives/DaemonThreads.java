package dev.ratisoffload.primitives;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Threads for the project's own pools: daemons, so a pool left behind never keeps a JVM (a server, the
 * command line) from exiting, and named {@code name-N}, so a thread dump says whose they are.
 */
public final class DaemonThreads {

  private DaemonThreads() {}

  public static ThreadFactory named(String name) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, name + "-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
