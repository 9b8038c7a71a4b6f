package dev.ratisoffload.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** A thread lowers its own priority, and only its own; threads it starts inherit it. */
class NicenessTest {

  /** Field 19 of /proc/thread-self/stat: the calling thread's nice value. */
  private static int niceOfCurrentThread() throws Exception {
    String stat = Files.readString(Path.of("/proc/thread-self/stat"));
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Integer.parseInt(fields[16]);
  }

  @Test
  void aThreadLowersItsOwnPriorityAndItsChildrenInheritIt() throws Exception {
    assumeTrue(Files.isSymbolicLink(Path.of("/proc/thread-self")), "Linux only");
    int before = niceOfCurrentThread();
    AtomicReference<int[]> seen = new AtomicReference<>();
    Thread worker = new Thread(() -> {
      try {
        boolean set = Niceness.lowerCurrentThread(7);
        int own = niceOfCurrentThread();
        int[] child = new int[1];
        Thread grandchild = new Thread(() -> {
          try {
            child[0] = niceOfCurrentThread();
          } catch (Exception e) {
            child[0] = -100;
          }
        });
        grandchild.start();
        grandchild.join();
        seen.set(new int[] {set ? 1 : 0, own, child[0]});
      } catch (Exception e) {
        seen.set(new int[] {-1, -1, -1});
      }
    });
    worker.start();
    worker.join();
    assertEquals(1, seen.get()[0], "renice succeeded");
    assertEquals(7, seen.get()[1]);
    assertEquals(7, seen.get()[2], "a thread started by it inherits the value");
    assertEquals(before, niceOfCurrentThread(), "the calling thread is untouched");
    assertTrue(!Niceness.lowerCurrentThread(0), "0 changes nothing");
  }
}
